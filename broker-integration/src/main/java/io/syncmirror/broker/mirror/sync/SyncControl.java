package io.syncmirror.broker.mirror.sync;

import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.syncmirror.protocol.MirrorPartitionState;
import io.syncmirror.protocol.MirrorError;
import io.syncmirror.protocol.MirrorType;

/**
 * The destination's sync control for the topics whose partitions this broker coordinates: promotion, topic-wide
 * demotion, the Unregisters owed to the source, and which partitions report. A state machine on the coordinator's
 * thread, stepped once per tick per topic ({@link #step}) with the time given: no thread, no sleep and no network
 * inside. Requests go out through {@link SyncLinks} and are answered later; a topic waits for its request's answer
 * before it decides anything else, so its Registers and Unregisters leave in the order they were decided. An
 * answer already there when the request returns (a link that answers at once) is acted on in the same step.
 *
 * <p>One broker drives each topic's promotion and topic-wide demotion: the one coordinating the topic's partition 0
 * (a deterministic choice every broker can make from its own image, and it moves with that partition's
 * leadership). The driver promotes once desired is SYNC, effective is ASYNC and every partition's lag is 0 (its
 * own partitions directly, the others through their leaders' describe answers): it turns reporting on for its
 * partitions, sends RegisterMirrorSyncTopic (RecoveryPromotion carrying the in-memory pendingRecoveryPromotion
 * hint) and, once admitted, commits effective SYNC; a failed commit is undone (an ASYNC commit, then an
 * Unregister). Rejections back off exponentially, counted in the driver partition's RetryAttempt. The driver also
 * demotes the topic (effective ASYNC, desired kept SYNC, recovery hint set) when every partition's reports have
 * failed for the demote timeout.
 *
 * <p>Every broker's partitions report while the topic is effectively SYNC (or the driver's registration is in
 * flight). Once the topic stops being SYNC, the driver sends the Unregister and its partitions report until the
 * source acknowledged it; every other broker's partitions report until the source refuses them
 * INVALID_SYNC_REGISTRATION (hazard 6), so no reports stop while the source may still gate on them. Register and
 * Unregister of a topic come from its driver alone: an Unregister from another broker could reach the source after
 * a quick re-promotion's Register and undo it.
 *
 * <p>Late requests. A request its sender gave up on (no answer within the timeout) may still land later, and a
 * driver may lose partition 0 with requests out; the seeded simulation (SyncControlSimulationTest) finds what
 * follows when nothing orders them. So:
 * <ul>
 * <li>the driver numbers its Registers, Unregisters and effective-type commits (DriverEpoch: partition 0's leader
 * epoch, then a counter), and the source's ledger and the destination's controller apply nothing numbered below
 * what they applied last for the topic: a late Register cannot re-register after an Unregister, a late SYNC
 * commit cannot make the topic SYNC after an ASYNC one;</li>
 * <li>before an Unregister the driver has an ASYNC commit of its own leader epoch applied, so no earlier SYNC
 * commit (its own or a former driver's) can land after the source stopped gating;</li>
 * <li>partition 0's state records that a Register went out ({@link SyncPartition#registrationOwed}) until an
 * Unregister is acknowledged, so a new driver undoes a registration its predecessor left;</li>
 * <li>an answer that arrives after partition 0 moved is not acted on: its outcome counts as unknown, and the
 * partitions report until the source refuses them.</li>
 * </ul>
 */
public final class SyncControl
{
    private static final Logger LOG = LoggerFactory.getLogger(SyncControl.class);

    private final SyncHost host;
    private final SyncLinks links;
    private final long retryBackoffMs;
    private final long retryBackoffMaxMs;
    private volatile long demoteTimeoutMs = 30_000L;
    private final Map<Uuid, TopicSyncState> topics = new ConcurrentHashMap<>();
    private final RemotePartitionsView remote;
    private final Map<RejectReason, LongAdder> rejections = new EnumMap<>(RejectReason.class);
    /** Numbers this broker's driver requests within a leader epoch (coordinator thread). */
    private long requestCounter;

    public SyncControl(final SyncHost host, final SyncLinks links, final long retryBackoffMs,
        final long retryBackoffMaxMs)
    {
        this.host = host;
        this.links = links;
        this.retryBackoffMs = retryBackoffMs;
        this.retryBackoffMaxMs = retryBackoffMaxMs;
        this.remote = new RemotePartitionsView(links, host);
        for (final RejectReason reason : RejectReason.values())
        {
            rejections.put(reason, new LongAdder());
        }
    }

    /** {@code mirror.sync.topic.demote.timeout.ms}. Any thread. */
    public void demoteTimeoutMs(final long timeoutMs)
    {
        this.demoteTimeoutMs = timeoutMs;
    }

    /**
     * Starts a tick: forgets the topics with no partition here that owe no Unregister, and the describes of other
     * brokers' partitions that a step read (the next one that needs them asks again).
     */
    public void beginTick(final Set<Uuid> topicsWithPartitionsHere)
    {
        for (final TopicSyncState topic : topics.values())
        {
            if (topic.awaited != null && !topicsWithPartitionsHere.contains(topic.topicId))
            {
                forgetAnswer(topic);
            }
        }
        topics.values().removeIf(t -> !topicsWithPartitionsHere.contains(t.topicId) && !t.unregisterPending);
        remote.beginTick();
    }

    /**
     * One step of a mirrored topic with partitions led here ({@code local}, non-empty).
     *
     * @param partitionCount the topic's partitions, here and elsewhere
     * @param effectiveSync  the image's effective type is SYNC
     */
    public void step(final String mirrorName, final Uuid topicId, final String topicName, final int partitionCount,
        final boolean effectiveSync, final List<? extends SyncPartition> local, final long nowMs)
    {
        step(mirrorName, topicId, topicName, partitionCount, effectiveSync, local, nowMs, true);
    }

    /**
     * As {@link #step(String, Uuid, String, int, boolean, List, long)}; {@code partitionsChanged} false says that no
     * partition's state or reporting changed since the last step, so that which of {@code local} report is redone
     * only when the topic's own reporting or its partitions here changed.
     */
    public void step(final String mirrorName, final Uuid topicId, final String topicName, final int partitionCount,
        final boolean effectiveSync, final List<? extends SyncPartition> local, final long nowMs,
        final boolean partitionsChanged)
    {
        final TopicSyncState topic = state(mirrorName, topicId, topicName);
        topic.partitionCount = partitionCount;
        final boolean localChanged = topic.local != local;
        topic.local = local;
        topic.stopUnregistered = false; // mirrored (again): a later failover unregisters afresh
        if (effectiveSync)
        {
            topic.armed = false;
            topic.wasSync = true;
            topic.unregisterPending = false;
        }
        else if (topic.wasSync)
        {
            topic.wasSync = false;
            topic.unregisterPending = true; // demoted: reports go on until the source acknowledges an Unregister
            topic.nextUnregisterAtMs = 0L;
        }
        final boolean reporting = effectiveSync || topic.armed || topic.unregisterPending;
        if (partitionsChanged || localChanged || topic.reportingApplied != (reporting ? 1 : 0))
        {
            for (final SyncPartition partition : local)
            {
                host.reporting(partition, reporting && partition.mirroring());
            }
            topic.reportingApplied = reporting ? 1 : 0;
        }
        if (topic.awaited != null)
        {
            if (!topic.awaited.isDone())
            {
                return;
            }
            final TopicSyncState.Continuation then = topic.then;
            final boolean sameDriving = topic.driver() != null &&
                topic.driver().leaderEpoch() == topic.awaitedLeaderEpoch;
            topic.awaited = null;
            topic.then = null;
            if (sameDriving)
            {
                then.run(topic, nowMs);
            }
            else
            {
                forgetAnswer(topic);
            }
            return;
        }
        final SyncPartition driver = topic.driver();
        if (topic.armed && !effectiveSync && (driver == null || driver.desiredMirrorType() != MirrorType.SYNC.id()))
        {
            // Partition 0 moved away while this broker's promotion was under way, or an operator demoted the topic
            // meanwhile (or before this broker saw the SYNC it committed): what may be registered is undone as a
            // demotion's is, by this broker's Unregister or, no longer driving, by the source's refusals.
            topic.armed = false;
            topic.unregisterPending = true;
            topic.nextUnregisterAtMs = 0L;
        }
        if (!effectiveSync && topic.unregisterPending)
        {
            if (driver != null)
            {
                maybeUnregister(topic, nowMs);
                if (topic.awaited != null)
                {
                    return;
                }
            }
            else if (sourceRefusesEveryReport(local))
            {
                // The driver's Unregister went through: the source no longer gates on these partitions. Only the
                // driver unregisters, after its own Register and before its next one, so no Unregister can reach
                // the source after a later promotion's Register and undo it.
                topic.unregisterPending = false;
                for (final SyncPartition partition : local)
                {
                    host.reporting(partition, false);
                }
                LOG.info("Mirror '{}' topic {}: the source no longer gates on this broker's partitions; sync "
                    + "reports stop", mirrorName, topicName);
            }
        }
        if (driver == null)
        {
            return;
        }
        final boolean desiredSync = driver.desiredMirrorType() == MirrorType.SYNC.id();
        if (!effectiveSync && !topic.armed && !topic.unregisterPending && driver.registrationOwed())
        {
            // The record says a Register went out (from this broker or from the one that drove before it) that no
            // acknowledged Unregister undid, and no promotion is under way: the source may gate on the mirror
            // while nothing reports to it.
            topic.unregisterPending = true;
            topic.nextUnregisterAtMs = 0L;
            maybeUnregister(topic, nowMs);
            return;
        }
        if (effectiveSync && !desiredSync)
        {
            // An operator's demotion whose commit did not get through: commit it now.
            final CompletableFuture<Void> commit = commitAsync(topic);
            await(topic, nowMs, commit, (t, now) -> asyncApplied(commit, t));
        }
        else if (effectiveSync)
        {
            maybeDemoteAllFailing(topic, nowMs);
        }
        else if (desiredSync && !topic.unregisterPending)
        {
            maybePromote(topic, nowMs);
        }
    }

    /**
     * An operator set the topic's desired type on the partitions led here: SYNC on the driver starts the Register
     * backoff afresh; ASYNC drops a pending recovery promotion (the operator opted out of it).
     */
    public void desiredTypeSet(final Uuid topicId, final String mirrorName, final String topicName,
        final byte mirrorType, final boolean driverHere)
    {
        if (mirrorType == MirrorType.SYNC.id() && driverHere)
        {
            state(mirrorName, topicId, topicName).nextRegisterAtMs = 0L;
        }
        else if (mirrorType == MirrorType.ASYNC.id())
        {
            final TopicSyncState topic = topics.get(topicId);
            if (topic != null)
            {
                topic.pendingRecoveryPromotion = false;
            }
        }
    }

    /** Whether this broker owes the source an Unregister for the topic (a failover then unregisters it). */
    public boolean unregisterOwed(final Uuid topicId)
    {
        final TopicSyncState topic = topics.get(topicId);
        return topic != null && topic.unregisterPending;
    }

    /**
     * A failover's sync part, before the partition's fetcher is removed: the Unregister at the source (once per
     * topic and broker, until the topic is mirrored again), and the topic's sync state cleared; a request of the
     * topic still awaited is forgotten. Completes with whether the source acknowledged the Unregister, never
     * exceptionally: the failover goes on without it (an operator may release the topic at the source later).
     * {@code driverEpoch} (SyncCommitFence#closing) fences every Register a driver sent before, should one land
     * after it.
     */
    public CompletableFuture<Boolean> unregisterOnStop(final String mirrorName, final Uuid topicId,
        final String topicName, final long driverEpoch)
    {
        final TopicSyncState topic = state(mirrorName, topicId, topicName);
        topic.awaited = null;
        topic.then = null;
        topic.unregisterPending = false;
        topic.armed = false;
        topic.wasSync = false;
        topic.pendingRecoveryPromotion = false;
        if (topic.stopUnregistered)
        {
            return CompletableFuture.completedFuture(true);
        }
        topic.stopUnregistered = true;
        return links.unregister(mirrorName, topicId, topicName, driverEpoch).handle((answer, e) ->
            acknowledged(mirrorName, topicName, answer, e));
    }

    private TopicSyncState state(final String mirrorName, final Uuid topicId, final String topicName)
    {
        return topics.computeIfAbsent(topicId, id -> new TopicSyncState(mirrorName, id, topicName));
    }

    /** True while this broker holds a pending recovery promotion for the topic (its driver does). Any thread. */
    public boolean recoveryPending(final Uuid topicId)
    {
        final TopicSyncState topic = topics.get(topicId);
        return topic != null && topic.pendingRecoveryPromotion;
    }

    /** SyncRegistrationRejected{reason}. Any thread. */
    public long rejected(final RejectReason reason)
    {
        return rejections.get(reason).sum();
    }

    // ------------------------------------------------------------------------------------------------------

    /**
     * Acts on {@code request}'s answer now when it is there, else in the step after it arrives, if this broker
     * still drives the topic under the same leader epoch then ({@link #forgetAnswer} otherwise): a continuation
     * always runs on the driver it was decided on.
     */
    private void await(final TopicSyncState topic, final long nowMs, final CompletableFuture<?> request,
        final TopicSyncState.Continuation then)
    {
        if (request.isDone())
        {
            then.run(topic, nowMs);
            return;
        }
        topic.awaited = request;
        topic.then = then;
        topic.awaitedLeaderEpoch = topic.driver().leaderEpoch();
        request.whenComplete((ignored, e) -> host.wakeup());
    }

    /**
     * A request's answer that came after partition 0 moved (or all of the topic's partitions here did): what it
     * says was true of the driving of then, not of now (another driver may have registered since). Its outcome
     * is taken as unknown, the safe way: the source may gate on the mirror, so the partitions report until it
     * refuses them or, if this broker drives again, until its own Unregister.
     */
    private static void forgetAnswer(final TopicSyncState topic)
    {
        topic.awaited = null;
        topic.then = null;
        topic.armed = false;
        topic.asyncFencedEpoch = -1;
        topic.unregisterPending = true;
        topic.nextUnregisterAtMs = 0L;
    }

    private void maybePromote(final TopicSyncState topic, final long nowMs)
    {
        if (nowMs < topic.nextRegisterAtMs || !caughtUp(topic))
        {
            return;
        }
        topic.armed = true;
        for (final SyncPartition partition : topic.local)
        {
            host.reporting(partition, partition.mirroring());
        }
        final SyncPartition driver = topic.driver();
        topic.owedByThisRegister = !driver.registrationOwed();
        if (!topic.owedByThisRegister)
        {
            sendRegister(topic, nowMs);
            return;
        }
        // Recorded before the Register goes out: should this broker stop driving before it is undone, the next
        // driver finds it with partition 0's state.
        final CompletableFuture<Void> owed = host.registrationOwed(driver, true);
        await(topic, nowMs, owed, (t, now) ->
        {
            if (owed.isCompletedExceptionally())
            {
                registerFailed(t, now, false, "recording the registration in __mirror_state failed: " +
                    SyncFailures.causeMessage(owed));
                return;
            }
            sendRegister(t, now);
        });
    }

    private void sendRegister(final TopicSyncState topic, final long nowMs)
    {
        final boolean recovery = topic.pendingRecoveryPromotion;
        final CompletableFuture<SyncLinks.Answer> register = links.register(topic.mirrorName, topic.topicId,
            topic.topicName, recovery, nextDriverEpoch(topic));
        await(topic, nowMs, register, (t, now) -> registered(t, now, register, recovery));
    }

    private void registered(final TopicSyncState topic, final long nowMs,
        final CompletableFuture<SyncLinks.Answer> register, final boolean recovery)
    {
        if (register.isCompletedExceptionally())
        {
            // The source may have admitted it before the connection failed: undo with an acknowledged Unregister.
            registerFailed(topic, nowMs, true, "RegisterMirrorSyncTopic to the source failed: " +
                SyncFailures.causeMessage(register));
            return;
        }
        final SyncLinks.Answer answer = register.join();
        final short code = answer.errorCode();
        if (code == Errors.NONE.code())
        {
            topic.asyncFencedEpoch = -1;
            final CompletableFuture<Void> commit = links.commitMirrorType(topic.topicId, MirrorType.SYNC.id(),
                nextDriverEpoch(topic));
            await(topic, nowMs, commit, (t, now) -> committedSync(t, now, commit, recovery));
            return;
        }
        final String failure = "the source refused the sync registration: " + SyncFailures.errorName(code) +
            (answer.message() == null ? "" : ": " + answer.message());
        if (code == MirrorError.MIRROR_SYNC_RELEASED_REQUIRES_FRESH_PROMOTION.code())
        {
            // Topic-wide demote path: effective stays (or becomes) ASYNC, desired stays SYNC, and the next
            // Register is a recovery promotion.
            topic.pendingRecoveryPromotion = true;
            rejections.get(RejectReason.RELEASED_FRESH_PROMOTION_REQUIRED).increment();
            final CompletableFuture<Void> commit = commitAsync(topic);
            await(topic, nowMs, commit, (t, now) ->
            {
                asyncApplied(commit, t);
                registerFailed(t, now, false, failure);
                clearOwedAfterRefusal(t, code);
            });
            return;
        }
        if (code == MirrorError.MIRROR_SYNC_VERSION_MISMATCH.code())
        {
            rejections.get(RejectReason.VERSION_MISMATCH).increment();
        }
        registerFailed(topic, nowMs, false, failure);
        clearOwedAfterRefusal(topic, code);
    }

    /**
     * The source refused this promotion's Register outright: it holds no registration from it, and none from
     * before (the record was clear), so the record is cleared again. Not after FENCED_LEADER_EPOCH: a newer
     * request of the topic was applied, whose outcome this broker does not know.
     */
    private void clearOwedAfterRefusal(final TopicSyncState topic, final short code)
    {
        final SyncPartition driver = topic.driver();
        if (topic.owedByThisRegister && code != Errors.FENCED_LEADER_EPOCH.code() && driver != null &&
            driver.registrationOwed())
        {
            host.registrationOwed(driver, false);
        }
    }

    private void committedSync(final TopicSyncState topic, final long nowMs, final CompletableFuture<Void> commit,
        final boolean recovery)
    {
        if (commit.isCompletedExceptionally())
        {
            registerFailed(topic, nowMs, true, "committing effective SYNC failed: " +
                SyncFailures.causeMessage(commit));
            return;
        }
        topic.pendingRecoveryPromotion = false;
        // Until the image shows SYNC, armed keeps the reports going and this keeps a second Register away.
        topic.nextRegisterAtMs = nowMs + retryBackoffMs;
        final SyncPartition driver = topic.driver();
        if (driver != null)
        {
            if (driver.registerAttempts() != 0)
            {
                host.registerAttempts(driver, 0);
            }
            host.promotionError(driver, null);
        }
        LOG.info("Mirror '{}' topic {}: promoted to SYNC{}", topic.mirrorName, topic.topicName,
            recovery ? " (recovery after a release by the source)" : "");
    }

    /** A Register that did not end in SYNC: stop reporting (after an Unregister when it may have been admitted). */
    private void registerFailed(final TopicSyncState topic, final long nowMs, final boolean mayBeRegistered,
        final String message)
    {
        topic.armed = false;
        if (mayBeRegistered)
        {
            topic.unregisterPending = true;
            topic.nextUnregisterAtMs = 0L;
        }
        else
        {
            for (final SyncPartition partition : topic.local)
            {
                host.reporting(partition, false);
            }
        }
        final SyncPartition driver = topic.driver();
        final int attempt = (driver == null ? 0 : driver.registerAttempts()) + 1;
        final long backoffMs = backoffMs(attempt);
        topic.nextRegisterAtMs = nowMs + backoffMs;
        if (driver != null)
        {
            host.registerAttempts(driver, attempt);
            host.promotionError(driver, message);
        }
        LOG.warn("Mirror '{}' topic {}: promotion to SYNC failed (attempt {}, next in {} ms): {}", topic.mirrorName,
            topic.topicName, attempt, backoffMs, message);
    }

    /**
     * Topic-wide demote when every partition's reports have failed (INVALID_SYNC_REGISTRATION or
     * MIRROR_REGISTRATION_PROPAGATING) for the demote timeout: the source most likely released the topic.
     */
    private void maybeDemoteAllFailing(final TopicSyncState topic, final long nowMs)
    {
        final long timeoutMs = demoteTimeoutMs;
        final Set<Integer> covered = new HashSet<>();
        for (final SyncPartition partition : topic.local)
        {
            final long sinceMs = partition.syncFailingSince();
            if (sinceMs < 0 || nowMs - sinceMs < timeoutMs)
            {
                return;
            }
            covered.add(partition.index());
        }
        if (covered.size() < topic.partitionCount)
        {
            final Map<Integer, RemotePartition> others = remote.of(topic.mirrorName, topic.topicId);
            if (others == null)
            {
                return; // asked; decided once the answer is here
            }
            for (int index = 0; index < topic.partitionCount; index++)
            {
                final RemotePartition other = others.get(index);
                if (!covered.contains(index) && (other == null || other.syncFailingForMs() < timeoutMs))
                {
                    return;
                }
            }
        }
        final CompletableFuture<Void> commit = commitAsync(topic);
        await(topic, nowMs, commit, (t, now) ->
        {
            if (!asyncApplied(commit, t))
            {
                return;
            }
            t.pendingRecoveryPromotion = true;
            // Recovery waits one backoff, so a source that keeps releasing is not met by a Register at once.
            t.nextRegisterAtMs = nowMs + retryBackoffMs;
            rejections.get(RejectReason.ALL_PARTITIONS_FAILING).increment();
            LOG.warn("Mirror '{}' topic {}: every partition's sync reports failed for {} ms; demoted to ASYNC, " +
                "recovery promotion pending (reason {})", t.mirrorName, t.topicName, timeoutMs,
                RejectReason.ALL_PARTITIONS_FAILING);
        });
    }

    /**
     * Sends the Unregister this broker owes the source; reporting stops once it is acknowledged. A numbered ASYNC
     * commit goes first unless one already followed the last SYNC commit: a SYNC commit still on its way (of this
     * driver, or of one before it) could otherwise make the topic SYNC after the source stopped gating on it.
     */
    private void maybeUnregister(final TopicSyncState topic, final long nowMs)
    {
        if (nowMs < topic.nextUnregisterAtMs)
        {
            return;
        }
        if (topic.asyncFencedEpoch != topic.driver().leaderEpoch())
        {
            final CompletableFuture<Void> commit = commitAsync(topic);
            await(topic, nowMs, commit, (t, now) ->
            {
                if (!asyncApplied(commit, t))
                {
                    t.unregisterAttempt++;
                    t.nextUnregisterAtMs = nowMs + backoffMs(t.unregisterAttempt);
                    return;
                }
                sendUnregister(t, now);
            });
            return;
        }
        sendUnregister(topic, nowMs);
    }

    private void sendUnregister(final TopicSyncState topic, final long nowMs)
    {
        final CompletableFuture<SyncLinks.Answer> unregister = links.unregister(topic.mirrorName, topic.topicId,
            topic.topicName, nextDriverEpoch(topic));
        await(topic, nowMs, unregister, (t, now) ->
        {
            final boolean acknowledged = unregister.isCompletedExceptionally() ?
                acknowledged(t.mirrorName, t.topicName, null, SyncFailures.causeOf(unregister)) :
                acknowledged(t.mirrorName, t.topicName, unregister.join(), null);
            if (acknowledged)
            {
                t.unregisterPending = false;
                t.unregisterAttempt = 0;
                final SyncPartition driver = t.driver();
                if (driver != null && driver.registrationOwed())
                {
                    // Best effort: should it not stick, a later driver sends one Unregister too many.
                    host.registrationOwed(driver, false);
                }
                for (final SyncPartition partition : t.local)
                {
                    host.reporting(partition, false);
                }
                LOG.info("Mirror '{}' topic {}: the source acknowledged the Unregister; sync reports stop",
                    t.mirrorName, t.topicName);
            }
            else
            {
                t.unregisterAttempt++;
                t.nextUnregisterAtMs = nowMs + backoffMs(t.unregisterAttempt);
            }
        });
    }

    private static boolean acknowledged(final String mirrorName, final String topicName,
        final SyncLinks.Answer answer, final Throwable failure)
    {
        if (failure != null)
        {
            LOG.warn("Mirror '{}' topic {}: Unregister at the source failed: {}", mirrorName, topicName,
                SyncFailures.messageOf(failure));
            return false;
        }
        if (answer.errorCode() == Errors.NONE.code())
        {
            return true;
        }
        LOG.warn("Mirror '{}' topic {}: the source refused the Unregister: {} {}", mirrorName, topicName,
            SyncFailures.errorName(answer.errorCode()), answer.message());
        return false;
    }

    /** True when every partition of the topic is MIRRORING with lag 0, asking other leaders for theirs. */
    private boolean caughtUp(final TopicSyncState topic)
    {
        final Set<Integer> covered = new HashSet<>();
        for (final SyncPartition partition : topic.local)
        {
            if (!partition.mirroring() || partition.lag() != 0)
            {
                return false;
            }
            covered.add(partition.index());
        }
        if (covered.size() < topic.partitionCount)
        {
            final Map<Integer, RemotePartition> others = remote.of(topic.mirrorName, topic.topicId);
            if (others == null)
            {
                return false; // asked; decided once the answer is here
            }
            for (int index = 0; index < topic.partitionCount; index++)
            {
                if (covered.contains(index))
                {
                    continue;
                }
                final RemotePartition other = others.get(index);
                if (other == null || other.state() != MirrorPartitionState.MIRRORING ||
                    other.lag() != 0)
                {
                    return false;
                }
            }
        }
        return true;
    }

    /**
     * Whether the source answered the last report of every reporting partition here INVALID_SYNC_REGISTRATION:
     * its leaders, with metadata as new as their controller's, hold no registration of this mirror on the topic.
     */
    private static boolean sourceRefusesEveryReport(final List<? extends SyncPartition> local)
    {
        for (final SyncPartition partition : local)
        {
            if (partition.reportingSync() && (partition.syncFailingSince() < 0 ||
                partition.lastSyncFailure() != MirrorError.INVALID_SYNC_REGISTRATION.code()))
            {
                return false;
            }
        }
        return true;
    }

    /** A numbered ASYNC commit of the driver; once applied, no earlier SYNC commit of the topic can land. */
    private CompletableFuture<Void> commitAsync(final TopicSyncState topic)
    {
        return links.commitMirrorType(topic.topicId, MirrorType.ASYNC.id(), nextDriverEpoch(topic));
    }

    /** After {@link #commitAsync}: true when the controller applied it (noted in the topic); logs a failure. */
    private static boolean asyncApplied(final CompletableFuture<Void> commit, final TopicSyncState topic)
    {
        if (logIfFailed(commit, topic, MirrorType.ASYNC))
        {
            return false;
        }
        final SyncPartition driver = topic.driver();
        topic.asyncFencedEpoch = driver == null ? -1 : driver.leaderEpoch();
        return true;
    }

    /** Logs a failed commit of the effective type; true when it failed. */
    private static boolean logIfFailed(final CompletableFuture<Void> commit, final TopicSyncState topic,
        final MirrorType type)
    {
        if (!commit.isCompletedExceptionally())
        {
            return false;
        }
        LOG.warn("Committing mirror type {} of topic {} failed: {}", type, topic.topicName,
            SyncFailures.causeMessage(commit));
        return true;
    }

    /**
     * The next number of the driver's requests: its partition 0 leader epoch in the high 32 bits, so a new driver's
     * requests rank above every request of the brokers that drove before it, and a counter in the low ones.
     */
    private long nextDriverEpoch(final TopicSyncState topic)
    {
        final SyncPartition driver = topic.driver();
        return ((long)driver.leaderEpoch() << 32) | (++requestCounter & 0xffffffffL);
    }

    private long backoffMs(final int attempt)
    {
        return Math.min(retryBackoffMaxMs, retryBackoffMs << Math.min(20, Math.max(0, attempt - 1)));
    }
}

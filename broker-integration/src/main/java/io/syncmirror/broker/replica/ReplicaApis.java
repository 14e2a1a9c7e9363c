package io.syncmirror.broker.replica;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.FetchMetadata;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.server.storage.log.FetchIsolation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.syncmirror.broker.adapter.MirrorLinks;
import io.syncmirror.broker.network.RequestContext;
import io.syncmirror.protocol.MirrorReplicaInfo;
import io.syncmirror.broker.storage.PartitionLog;
import io.syncmirror.fetch.FetchContext;
import io.syncmirror.fetch.FetchResponseAssembler;
import io.syncmirror.fetch.FetchSession;
import io.syncmirror.fetch.FetchSessionCache;
import io.syncmirror.fetch.TopicNameResolver;
import io.syncmirror.hwgate.AckOutcome;
import io.syncmirror.protocol.MirrorError;
import io.syncmirror.hwgate.RequestShard;

/**
 * The data-path APIs Produce and Fetch (consumers and followers, long-polled; {@link OffsetApis} has the offset
 * lookups). Thread-safety: stateless apart from the replica manager; handlers run on the
 * connection's event loop and complete their futures there or on the produce owner's thread.
 */
public final class ReplicaApis
{
    private static final Logger LOG = LoggerFactory.getLogger(ReplicaApis.class);
    /** The first Fetch version whose partition responses carry CurrentLeader (a tagged field). */
    private static final short FETCH_MIN_CURRENT_LEADER_VERSION = 12;

    private final ReplicaManager replicas;
    private final FetchSessionCache sessions;
    private final TopicNameResolver topicNames;
    private final java.util.function.BooleanSupplier metadataBehind;

    /**
     * @param sessions   the broker's KIP-227 fetch sessions.
     * @param topicNames topic id to name, from the broker's metadata image.
     */
    public ReplicaApis(final ReplicaManager replicas, final FetchSessionCache sessions,
        final TopicNameResolver topicNames)
    {
        this(replicas, sessions, topicNames, () -> false);
    }

    /**
     * @param metadataBehind whether this broker's applied metadata offset is below the latest offset it knows the
     *                       controller committed (a sync registration may not have reached it yet).
     */
    public ReplicaApis(final ReplicaManager replicas, final FetchSessionCache sessions,
        final TopicNameResolver topicNames, final java.util.function.BooleanSupplier metadataBehind)
    {
        this.replicas = replicas;
        this.sessions = sessions;
        this.topicNames = topicNames;
        this.metadataBehind = metadataBehind;
    }

    public static short minVersion(final ApiKeys key)
    {
        return switch (key)
        {
            case PRODUCE -> 3;
            case FETCH -> 4;
            case LIST_OFFSETS -> 1;
            case OFFSET_FOR_LEADER_EPOCH -> 2;
            case DELETE_RECORDS, DESCRIBE_PRODUCERS -> key.oldestVersion();
            default -> -1;
        };
    }

    public static short maxVersion(final ApiKeys key)
    {
        return switch (key)
        {
            case PRODUCE, FETCH, LIST_OFFSETS, OFFSET_FOR_LEADER_EPOCH, DELETE_RECORDS, DESCRIBE_PRODUCERS ->
                key.latestVersion();
            default -> -1;
        };
    }

    // ------------------------------------------------------------------------------------------------------
    // Produce.
    // ------------------------------------------------------------------------------------------------------

    /** One partition of a produce request and what became of it. */
    private static final class ProducePartition
    {
        final ProduceResponseData.TopicProduceResponse topic;
        final ProduceResponseData.PartitionProduceResponse response;
        final Partition partition;
        final MemoryRecords records;

        ProducePartition(final ProduceResponseData.TopicProduceResponse topic, final int index,
            final Partition partition, final MemoryRecords records)
        {
            this.topic = topic;
            this.partition = partition;
            this.records = records;
            this.response = new ProduceResponseData.PartitionProduceResponse().setIndex(index)
                .setBaseOffset(ProduceResponse.INVALID_OFFSET).setLogAppendTimeMs(-1L).setLogStartOffset(-1L);
            topic.partitionResponses().add(response);
        }
    }

    public CompletableFuture<AbstractResponse> handleProduce(final RequestContext context, final ProduceRequest request)
    {
        final short version = context.header().apiVersion();
        final ProduceResponseData data = new ProduceResponseData();
        final List<ProducePartition> parts = new ArrayList<>();
        for (final ProduceRequestData.TopicProduceData topic : request.data().topicData())
        {
            final ProduceResponseData.TopicProduceResponse topicResponse =
                new ProduceResponseData.TopicProduceResponse().setName(topic.name()).setTopicId(topic.topicId());
            data.responses().add(topicResponse);
            for (final ProduceRequestData.PartitionProduceData partitionData : topic.partitionData())
            {
                final Partition partition = version >= 13 ?
                    replicas.partitionOrNull(topic.topicId(), partitionData.index()) :
                    replicas.partitionOrNull(new org.apache.kafka.common.TopicPartition(topic.name(),
                        partitionData.index()));
                MemoryRecords records = null;
                Errors error = Errors.NONE;
                if (partition == null)
                {
                    error = version >= 13 ? Errors.UNKNOWN_TOPIC_ID : Errors.UNKNOWN_TOPIC_OR_PARTITION;
                }
                else if (org.apache.kafka.common.internals.Topic.isInternal(partition.topicPartition().topic()))
                {
                    // Only their coordinators write __consumer_offsets and __transaction_state, as in Kafka: the
                    // group coordinator's state must match what it wrote there.
                    error = Errors.INVALID_TOPIC_EXCEPTION;
                }
                else
                {
                    try
                    {
                        ProduceRequest.validateRecords(version, partitionData.records());
                        records = (MemoryRecords)partitionData.records();
                    }
                    catch (final ApiException ex)
                    {
                        error = Errors.forException(ex);
                    }
                    catch (final ClassCastException ex)
                    {
                        error = Errors.CORRUPT_MESSAGE;
                    }
                }
                final ProducePartition part = new ProducePartition(topicResponse, partitionData.index(), partition,
                    records);
                if (error != Errors.NONE)
                {
                    part.response.setErrorCode(error.code()).setErrorMessage(error.message());
                }
                parts.add(part);
            }
        }
        final CompletableFuture<AbstractResponse> future = new CompletableFuture<>();
        if (request.acks() != -1)
        {
            for (final ProducePartition part : parts)
            {
                appendOne(part, null, RequestShard.NO_REQUEST);
            }
            request.clearPartitionRecords();
            future.complete(request.acks() == 0 ? null : new ProduceResponse(data));
            return future;
        }
        final ProduceOwner owner = replicas.ownerForCurrentThread();
        final Runnable produce = () -> produceAcksAll(owner, parts, data, request.timeout(), version, future);
        if (owner.executor().inEventLoop())
        {
            produce.run();
        }
        else
        {
            owner.executor().execute(produce);
        }
        return future.thenApply(response ->
        {
            request.clearPartitionRecords();
            return response;
        });
    }

    private void produceAcksAll(final ProduceOwner owner, final List<ProducePartition> parts,
        final ProduceResponseData data, final int timeoutMs, final short version,
        final CompletableFuture<AbstractResponse> future)
    {
        final long startNanos = System.nanoTime();
        boolean gated = false;
        for (final ProducePartition part : parts)
        {
            gated |= part.partition != null && part.partition.isSyncGated();
        }
        final SyncSourceMetrics metrics = gated ? replicas.syncMetrics() : null;
        if (metrics != null)
        {
            metrics.produceStarted();
        }
        final int request = owner.begin(parts.size(), timeoutMs, (shard, req) ->
        {
            if (metrics != null)
            {
                metrics.produceAnswered(System.nanoTime() - startNanos);
            }
            int cell = shard.firstCell(req);
            for (final ProducePartition part : parts)
            {
                final int outcome = shard.cellOutcome(cell);
                final short code = AckOutcome.errorCode(outcome);
                if (code != Errors.NONE.code() && part.response.errorCode() == Errors.NONE.code())
                {
                    answerAckError(part.response, outcome, version);
                }
                cell = shard.nextCell(cell);
            }
            future.complete(new ProduceResponse(data));
        });
        if (request == RequestShard.NO_REQUEST)
        {
            if (metrics != null)
            {
                metrics.produceAnswered(System.nanoTime() - startNanos);
            }
            for (final ProducePartition part : parts)
            {
                part.response.setErrorCode(Errors.REQUEST_TIMED_OUT.code())
                    .setErrorMessage("too many acks=all produces in flight on this broker thread");
            }
            future.complete(new ProduceResponse(data));
            return;
        }
        for (final ProducePartition part : parts)
        {
            appendOne(part, owner.shard(), request);
        }
        owner.drain();
    }

    /** Appends one partition's batch; with a shard, registers its wait or skips it with the error. */
    private void appendOne(final ProducePartition part, final RequestShard shard, final int request)
    {
        if (part.response.errorCode() != Errors.NONE.code())
        {
            if (shard != null)
            {
                shard.skip(request, part.response.errorCode());
            }
            return;
        }
        try
        {
            final PartitionLog.AppendResult result = part.partition.appendAsLeader(part.records, shard != null,
                shard, request, false);
            part.response.setBaseOffset(result.firstOffset()).setLogAppendTimeMs(result.logAppendTimeMs())
                .setLogStartOffset(result.logStartOffset());
        }
        catch (final ApiException ex)
        {
            final Errors error = Errors.forException(ex);
            part.response.setErrorCode(error.code()).setErrorMessage(ex.getMessage());
            if (shard != null)
            {
                shard.skip(request, error.code());
            }
        }
        catch (final RuntimeException ex)
        {
            LOG.error("append to {} failed", part.partition.topicPartition(), ex);
            part.response.setErrorCode(Errors.UNKNOWN_SERVER_ERROR.code()).setErrorMessage(ex.toString());
            if (shard != null)
            {
                shard.skip(request, Errors.UNKNOWN_SERVER_ERROR.code());
            }
        }
    }

    /**
     * Fills a partition's answer from its ack outcome. The sync errors name their mirror (the slowest one for a
     * timeout) and, for a producer that negotiated Produce below v14, become NOT_ENOUGH_REPLICAS_AFTER_APPEND,
     * which it retries (the sync text's maybeDownConvertSyncMirrorError); the message still names the mirror.
     */
    private void answerAckError(final ProduceResponseData.PartitionProduceResponse response, final int outcome,
        final short version)
    {
        final short code = AckOutcome.errorCode(outcome);
        final MirrorError mirrorError = MirrorError.forCode(code);
        final String mirrorName = replicas.mirrorLinks().nameOf(AckOutcome.mirror(outcome));
        final String message = mirrorError == null ? Errors.forCode(code).message() : mirrorError.message(mirrorName);
        response.setErrorCode(MirrorError.maybeDownConvertSyncMirrorError(code, version)).setErrorMessage(message);
    }

    // ------------------------------------------------------------------------------------------------------
    // Fetch.
    // ------------------------------------------------------------------------------------------------------

    public CompletableFuture<AbstractResponse> handleFetch(final RequestContext context, final FetchRequest request)
    {
        final CompletableFuture<AbstractResponse> future = new CompletableFuture<>();
        final short version = context.header().apiVersion();
        final long nowMs = replicas.nowMs();
        final FetchContext fetch = sessions.newContext(request.data(), version, request.isFromFollower(), topicNames,
            nowMs);
        if (fetch.error() != Errors.NONE)
        {
            future.complete(new FetchResponseAssembler(fetch, version).build(nowMs, 0));
            return future;
        }
        final long deadlineMs = nowMs + Math.max(0, request.maxWait());
        final io.netty.util.concurrent.EventExecutor executor = replicas.ownerForCurrentThread().executor();
        final MirrorFetch mirror = context.mirrorReplicaInfo().filter(info -> !info.mirrorName().isEmpty())
            .map(this::applyMirrorReport).orElse(null);
        attemptFetch(request, fetch, version, deadlineMs, executor, future, mirror, true);
        return future;
    }

    /**
     * What a Fetch v20's MirrorReplicaInfo changes in how it is answered: its mirror link as a MirrorLinks handle
     * (whose registered partitions are read up to the LEO, hazard 4) and the per-partition registration errors of
     * its report.
     */
    private record MirrorFetch(long link, Map<ReportedPartition, ReportError> errors)
    {
    }

    private record ReportedPartition(Uuid topicId, int partition)
    {
    }

    private record ReportError(String topic, short code)
    {
    }

    /**
     * Applies a destination's MirrorReplicaInfo: each reported partition this broker leads, with the mirror
     * registered for its topic, gets the reported LEOs and ISR in its hot-path row. A partition whose topic does
     * not have the mirror registered is answered MIRROR_REGISTRATION_PROPAGATING while this broker's metadata is
     * behind the controller's (the registration may be on its way), INVALID_SYNC_REGISTRATION otherwise. A full
     * report also forgets the mirror's reports for every registered partition it leaves out.
     */
    private MirrorFetch applyMirrorReport(final MirrorReplicaInfo info)
    {
        // The link and its holder's generation, once: a report racing a release is not credited to the next holder.
        final long link = replicas.mirrorLinks().handleOf(info.mirrorName());
        final Map<ReportedPartition, ReportError> errors = new HashMap<>();
        final java.util.Set<Partition> reported = info.fullReport() ? new java.util.HashSet<>() : null;
        int[] replicaIds = new int[8];
        long[] leos = new long[8];
        int[] isr = new int[8];
        for (final MirrorReplicaInfo.MirroredTopic topic : info.topics())
        {
            for (final MirrorReplicaInfo.MirroredTopicPartition p : topic.partitions())
            {
                final Partition partition = replicas.partitionOrNull(topic.topicId(), p.partition());
                final ReportedPartition key = new ReportedPartition(topic.topicId(), p.partition());
                if (partition == null)
                {
                    errors.put(key, new ReportError(topic.topic(), Errors.UNKNOWN_TOPIC_ID.code()));
                    continue;
                }
                if (reported != null)
                {
                    reported.add(partition);
                }
                final int replicaCount = p.replicaLastOffsets().size();
                if (replicaIds.length < replicaCount || isr.length < p.isr().size())
                {
                    final int size = Math.max(replicaCount, p.isr().size());
                    replicaIds = new int[size];
                    leos = new long[size];
                    isr = new int[size];
                }
                for (int r = 0; r < replicaCount; r++)
                {
                    replicaIds[r] = p.replicaLastOffsets().get(r).replicaId();
                    leos[r] = p.replicaLastOffsets().get(r).lastFetchOffset();
                }
                for (int i = 0; i < p.isr().size(); i++)
                {
                    isr[i] = p.isr().get(i);
                }
                final Partition.ReportResult result = link == MirrorLinks.NO_HANDLE ?
                    Partition.ReportResult.NOT_REGISTERED :
                    partition.onMirrorReport(link, p.destinationLeaderEpoch(), p.validatedSourceEpoch(), replicaIds,
                        leos, replicaCount, isr, p.isr().size(), p.minIsr());
                if (result == Partition.ReportResult.NOT_LEADER)
                {
                    errors.put(key, new ReportError(topic.topic(), Errors.NOT_LEADER_OR_FOLLOWER.code()));
                }
                else if (result == Partition.ReportResult.NOT_REGISTERED)
                {
                    errors.put(key, new ReportError(topic.topic(), metadataBehind.getAsBoolean() ?
                        MirrorError.MIRROR_REGISTRATION_PROPAGATING.code() :
                        MirrorError.INVALID_SYNC_REGISTRATION.code()));
                }
            }
        }
        if (reported != null && link != MirrorLinks.NO_HANDLE)
        {
            for (final Partition partition : replicas.partitions())
            {
                if (partition.syncLinkRegistered(link) && !reported.contains(partition))
                {
                    partition.clearMirrorReports(link);
                }
            }
        }
        return new MirrorFetch(link, errors);
    }

    /**
     * Adds a report's registration errors to the answer of a fetch that asked for no partitions (the
     * destination's report-only fetch): as partitions of the response, each with its error code.
     */
    private static FetchResponse withReportErrors(final FetchResponse response, final MirrorFetch mirror,
        final FetchSession session)
    {
        if (mirror == null || mirror.errors().isEmpty() || session.size() > 0)
        {
            return response;
        }
        final Map<Uuid, FetchResponseData.FetchableTopicResponse> topics = new HashMap<>();
        for (final Map.Entry<ReportedPartition, ReportError> error : mirror.errors().entrySet())
        {
            topics.computeIfAbsent(error.getKey().topicId(), id ->
            {
                final FetchResponseData.FetchableTopicResponse topic = new FetchResponseData.FetchableTopicResponse()
                    .setTopicId(id).setTopic(error.getValue().topic() == null ? "" : error.getValue().topic());
                response.data().responses().add(topic);
                return topic;
            }).partitions().add(new FetchResponseData.PartitionData()
                .setPartitionIndex(error.getKey().partition())
                .setErrorCode(error.getValue().code())
                .setHighWatermark(FetchResponse.INVALID_HIGH_WATERMARK)
                .setLastStableOffset(FetchResponse.INVALID_LAST_STABLE_OFFSET)
                .setLogStartOffset(FetchResponse.INVALID_LOG_START_OFFSET)
                .setRecords(MemoryRecords.EMPTY));
        }
        return response;
    }

    /**
     * Reads the fetch's partitions; answers when there is enough data, an error, a HW change a follower must
     * learn (Kafka's DelayedFetch case G), or the deadline; otherwise parks until one of the session's partitions
     * changes, then reads again. A full or sessionless fetch reads every partition, and so does an incremental one
     * that reads differently from its session's last fetch (another isolation, fetcher or mirror link); any other
     * incremental fetch reads only the partitions its request names, those changed since they were last read, and
     * those the last response sent records for or left with more to read ({@link SessionWatch}): the others would be
     * left out anyway.
     */
    private void attemptFetch(final FetchRequest request, final FetchContext fetch, final short version,
        final long deadlineMs, final io.netty.util.concurrent.EventExecutor executor,
        final CompletableFuture<AbstractResponse> future, final MirrorFetch mirror, final boolean first)
    {
        if (future.isDone())
        {
            return;
        }
        final int replicaId = request.replicaId();
        final boolean follower = replicaId >= 0;
        final FetchIsolation isolation = follower ? FetchIsolation.LOG_END :
            request.isolationLevel() == IsolationLevel.READ_COMMITTED ? FetchIsolation.TXN_COMMITTED :
                FetchIsolation.HIGH_WATERMARK;
        final long nowMs = replicas.nowMs();
        final FetchSession session = fetch.partitions();
        SessionWatch watch = session.attachment() instanceof SessionWatch w ? w : null;
        if (watch == null)
        {
            watch = new SessionWatch(session);
            session.attach(watch);
        }
        boolean readsAll = fetch.kind() != FetchContext.Kind.INCREMENTAL;
        if (first)
        {
            // What decides how each partition is read, besides the partition itself.
            final long readShape = ((long)isolation.ordinal() << 40) | ((replicaId & 0xFFFFFFL) << 16) |
                (mirror == null ? 0xFFFFL : (MirrorLinks.index(mirror.link()) & 0xFFL) |
                    ((MirrorLinks.generation(mirror.link()) & 0xFFL) << 8));
            readsAll |= !watch.beginFetch(readShape);
            watch.readsAll(readsAll);
            if (!readsAll)
            {
                watch.queueRequestedAndLeftOver();
                queueReportErrors(watch, session, mirror);
            }
        }
        readsAll = watch.readsAll();
        final boolean incremental = fetch.kind() == FetchContext.Kind.INCREMENTAL;
        watch.drainChanged();
        if (readsAll)
        {
            for (int slot = session.firstSlot(); slot != FetchSession.NO_SLOT; slot = session.nextSlot(slot))
            {
                watch.queueRead(slot);
            }
        }
        watch.sortReads();
        final int reads = watch.readCount();
        final FetchResponseAssembler assembler = new FetchResponseAssembler(fetch, version);
        final FetchResponseData.PartitionData[] answers = new FetchResponseData.PartitionData[reads];
        final boolean[] moreToRead = new boolean[reads];
        final Partition[] partitions = new Partition[reads];
        // A follower's LEO credits of every partition go into the rows at once, before any partition is read, so
        // the reads answer with the HWs they moved (FollowerCredits).
        final FollowerCredits credits = follower ? new FollowerCredits(reads) : null;
        for (int i = 0; i < reads; i++)
        {
            final int slot = watch.readSlot(i);
            final Partition partition = lookup(session, slot, version);
            partitions[i] = partition;
            // Watched before it is read: a change from here on reaches the session.
            watch.watch(slot, partition);
            final ReportError reportError = mirror == null || mirror.errors().isEmpty() ? null :
                mirror.errors().get(new ReportedPartition(session.topicId(slot), session.partition(slot)));
            answers[i] = reportError != null ? errorAnswer(session, slot, reportError.code()) :
                checkPartition(session, slot, partition, replicaId, version, nowMs, credits);
        }
        if (credits != null)
        {
            credits.publish(replicas.hotPath());
        }
        int remainingBytes = Math.max(0, request.maxBytes());
        int bytes = 0;
        boolean mustAnswer = false;
        for (int i = 0; i < reads; i++)
        {
            final int slot = watch.readSlot(i);
            final Partition partition = partitions[i];
            // A sync mirror's fetch reads its registered partitions up to the LEO, as a follower's does.
            final boolean toLeo = mirror != null && partition != null && partition.syncLinkRegistered(mirror.link());
            if (answers[i] == null)
            {
                answers[i] = readPartition(session, slot, partition, follower, replicaId, toLeo ?
                    FetchIsolation.LOG_END : isolation, remainingBytes, bytes == 0, moreToRead, i);
            }
            final FetchResponseData.PartitionData answer = answers[i];
            final int size = answer.records() == null ? 0 : answer.records().sizeInBytes();
            bytes += size;
            remainingBytes = Math.max(0, remainingBytes - size);
            mustAnswer |= answer.errorCode() != Errors.NONE.code() || FetchResponse.isDivergingEpoch(answer) ||
                (follower && incremental && size == 0 && assembler.wouldInclude(slot, answer));
        }
        if (bytes >= request.minBytes() || mustAnswer || nowMs >= deadlineMs || session.isEmpty())
        {
            for (int i = 0; i < reads; i++)
            {
                final int slot = watch.readSlot(i);
                assembler.maybeAdd(slot, answers[i]);
                final FetchResponseData.PartitionData answer = answers[i];
                if (moreToRead[i] || answer.errorCode() != Errors.NONE.code() ||
                    FetchResponse.isDivergingEpoch(answer) ||
                    (answer.records() != null && answer.records().sizeInBytes() > 0))
                {
                    // Nothing may change on it before the fetcher asks again: read it next time regardless. That
                    // includes records sent: a fetcher that dropped this response (a consumer that moved to other
                    // partitions meanwhile) asks for the same offset again without naming the partition, and must
                    // get them again. A fetcher that took them names the partition at its new offset anyway.
                    watch.leaveOver(slot);
                }
            }
            final FetchResponse response = assembler.build(replicas.nowMs(), 0);
            future.complete(withReportErrors(response, mirror, session));
            // A response without a session id, or a session the cache dropped meanwhile: nothing fetches it again.
            if (response.sessionId() == FetchMetadata.INVALID_SESSION_ID || session.removedFromCache())
            {
                watch.close();
            }
            return;
        }
        final AtomicBoolean fired = new AtomicBoolean();
        final Runnable retry = () ->
        {
            if (fired.compareAndSet(false, true))
            {
                try
                {
                    executor.execute(() -> attemptFetch(request, fetch, version, deadlineMs, executor, future,
                        mirror, false));
                }
                catch (final java.util.concurrent.RejectedExecutionException e)
                {
                    // The connection's event loop has stopped (the broker is closing): nobody waits for the answer.
                }
            }
        };
        watch.park(retry);
        if (watch.hasChanges())
        {
            // A partition changed after it was read and before the fetch parked: nobody would wake it for that.
            retry.run();
            return;
        }
        executor.schedule(retry, Math.max(1, deadlineMs - nowMs), TimeUnit.MILLISECONDS);
    }

    /** A mirror report's errors are answered for their partitions even when nothing else changed there. */
    private static void queueReportErrors(final SessionWatch watch, final FetchSession session,
        final MirrorFetch mirror)
    {
        if (mirror == null || mirror.errors().isEmpty())
        {
            return;
        }
        for (final ReportedPartition key : mirror.errors().keySet())
        {
            final int slot = session.slotOf(key.topicId(), null, key.partition());
            if (slot != FetchSession.NO_SLOT)
            {
                watch.queueRead(slot);
            }
        }
    }

    private static FetchResponseData.PartitionData errorAnswer(final FetchSession session, final int slot,
        final short errorCode)
    {
        return emptyAnswer(session, slot).setErrorCode(errorCode);
    }

    private Partition lookup(final FetchSession session, final int slot, final short version)
    {
        if (version >= 13)
        {
            return replicas.partitionOrNull(session.topicId(slot), session.partition(slot));
        }
        return replicas.partitionOrNull(new org.apache.kafka.common.TopicPartition(session.topicName(slot),
            session.partition(slot)));
    }

    /**
     * Checks a partition of the fetch before anything is read: the answer for an error or a diverging epoch, or
     * null when it is to be read. A follower's fetch of a partition it may read adds its LEO to {@code credits}.
     */
    private FetchResponseData.PartitionData checkPartition(final FetchSession session, final int slot,
        final Partition partition, final int replicaId, final short version, final long nowMs,
        final FollowerCredits credits)
    {
        if (partition == null)
        {
            return emptyAnswer(session, slot).setErrorCode((version >= 13 ? Errors.UNKNOWN_TOPIC_ID :
                Errors.UNKNOWN_TOPIC_OR_PARTITION).code());
        }
        final Partition.Role role = partition.role();
        final PartitionLog log = partition.log();
        if (!role.leader())
        {
            return emptyAnswer(session, slot).setErrorCode(Errors.NOT_LEADER_OR_FOLLOWER.code())
                .setCurrentLeader(currentLeader(role, version));
        }
        final int currentLeaderEpoch = session.currentLeaderEpoch(slot);
        if (currentLeaderEpoch >= 0 && currentLeaderEpoch != role.leaderEpoch())
        {
            // CurrentLeader (KIP-951) lets a fetcher without metadata, such as a mirror fetcher that begins with
            // an unknown source epoch, learn the epoch from the error itself.
            return emptyAnswer(session, slot).setErrorCode((currentLeaderEpoch < role.leaderEpoch() ?
                Errors.FENCED_LEADER_EPOCH : Errors.UNKNOWN_LEADER_EPOCH).code())
                .setCurrentLeader(currentLeader(role, version));
        }
        final long fetchOffset = session.fetchOffset(slot);
        final int lastFetchedEpoch = session.lastFetchedEpoch(slot);
        // As Kafka does, any fetch carrying LastFetchedEpoch is checked, not only a follower's: a mirror fetcher
        // (a consumer-type fetch) learns of a source unclean election this way.
        if (lastFetchedEpoch >= 0)
        {
            final Optional<PartitionLog.EpochEndOffset> end = partition.endOffsetForEpoch(lastFetchedEpoch);
            if (end.isEmpty() || end.get().epoch() < 0 || end.get().endOffset() < 0)
            {
                // As Kafka: no end for the fetcher's epoch is an OFFSET_OUT_OF_RANGE. A DivergingEpoch of -1/-1
                // would read as "no divergence" and leave the fetcher asking again for nothing, forever.
                return emptyAnswer(session, slot).setErrorCode(Errors.OFFSET_OUT_OF_RANGE.code())
                    .setHighWatermark(log.highWatermark()).setLogStartOffset(log.logStartOffset())
                    .setLastStableOffset(log.lastStableOffset());
            }
            if (end.get().epoch() != lastFetchedEpoch || end.get().endOffset() < fetchOffset)
            {
                // The fetcher's tail diverges from this leader's history: tell it where to truncate, and credit
                // nothing of that tail (hazard 1).
                return emptyAnswer(session, slot).setDivergingEpoch(new FetchResponseData.EpochEndOffset()
                    .setEpoch(end.get().epoch()).setEndOffset(end.get().endOffset()))
                    .setHighWatermark(log.highWatermark()).setLogStartOffset(log.logStartOffset())
                    .setLastStableOffset(log.lastStableOffset());
            }
        }
        if (credits != null && fetchOffset <= log.logEndOffset() && fetchOffset >= log.logStartOffset())
        {
            partition.onFollowerFetch(role, replicaId, fetchOffset, nowMs, credits);
        }
        return null;
    }

    private static FetchResponseData.PartitionData emptyAnswer(final FetchSession session, final int slot)
    {
        return new FetchResponseData.PartitionData()
            .setPartitionIndex(session.partition(slot))
            .setHighWatermark(FetchResponse.INVALID_HIGH_WATERMARK)
            .setLastStableOffset(FetchResponse.INVALID_LAST_STABLE_OFFSET)
            .setLogStartOffset(FetchResponse.INVALID_LOG_START_OFFSET)
            .setRecords(MemoryRecords.EMPTY);
    }

    /**
     * Reads a partition {@link #checkPartition} let through, after the fetch's credits were published. A follower
     * that caught up with the HW and is not in the ISR is put forward for it.
     */
    private FetchResponseData.PartitionData readPartition(final FetchSession session, final int slot,
        final Partition partition, final boolean follower, final int replicaId, final FetchIsolation isolation,
        final int remainingBytes, final boolean minOneMessage, final boolean[] moreToRead, final int readIndex)
    {
        final FetchResponseData.PartitionData data = emptyAnswer(session, slot);
        final Partition.Role role = partition.role();
        final PartitionLog log = partition.log();
        final long fetchOffset = session.fetchOffset(slot);
        if (follower && role.leader() && role.replicaIndex(replicaId) >= 0 && !role.isr().contains(replicaId) &&
            fetchOffset <= log.logEndOffset() && fetchOffset >= log.highWatermark())
        {
            replicas.onFollowerCaughtUp(partition);
        }
        final long highWatermark = log.highWatermark();
        final long readEnd = isolation == FetchIsolation.LOG_END ? log.logEndOffset() :
            isolation == FetchIsolation.HIGH_WATERMARK ? highWatermark : log.lastStableOffset();
        if (fetchOffset == readEnd && fetchOffset >= log.logStartOffset())
        {
            // Nothing to read, the common case of a parked fetch's partitions: answer from the offsets alone.
            return data.setHighWatermark(highWatermark)
                .setLastStableOffset(log.lastStableOffset())
                .setLogStartOffset(log.logStartOffset())
                .setAbortedTransactions(isolation == FetchIsolation.TXN_COMMITTED ? List.of() : null);
        }
        try
        {
            final PartitionLog.ReadResult read = log.read(fetchOffset,
                Math.min(session.partitionMaxBytes(slot), remainingBytes), isolation, minOneMessage);
            // As Kafka (for Fetch v3+): a first batch cut short by the byte limit goes out as no records, since
            // a consumer that finds no complete batch cannot move on.
            final org.apache.kafka.common.record.internal.Records records =
                read.records() == null || firstBatchIncomplete(read.records()) ? MemoryRecords.EMPTY : read.records();
            data.setHighWatermark(read.highWatermark())
                .setLastStableOffset(read.lastStableOffset())
                .setLogStartOffset(read.logStartOffset())
                .setRecords(records);
            // Records past the response's byte limit: the fetcher gets them next time, though nothing may change.
            moreToRead[readIndex] = fetchOffset < readEnd && records.sizeInBytes() == 0;
            if (isolation == FetchIsolation.TXN_COMMITTED)
            {
                data.setAbortedTransactions(read.abortedTransactions() == null ? List.of() :
                    read.abortedTransactions());
            }
            else
            {
                data.setAbortedTransactions(null);
            }
            return data;
        }
        catch (final ApiException ex)
        {
            return data.setErrorCode(Errors.forException(ex).code())
                .setHighWatermark(log.highWatermark()).setLogStartOffset(log.logStartOffset())
                .setLastStableOffset(log.lastStableOffset());
        }
    }

    /**
     * The CurrentLeader of a partition error: the leader and its epoch from Fetch v12, the first version with the
     * field, and its default (nothing) below, where kafka-clients refuses to write anything else.
     */
    private static FetchResponseData.LeaderIdAndEpoch currentLeader(final Partition.Role role, final short version)
    {
        final FetchResponseData.LeaderIdAndEpoch leader = new FetchResponseData.LeaderIdAndEpoch();
        return version < FETCH_MIN_CURRENT_LEADER_VERSION ? leader :
            leader.setLeaderId(role.leaderId()).setLeaderEpoch(role.leaderEpoch());
    }

    private static boolean firstBatchIncomplete(final org.apache.kafka.common.record.internal.Records records)
    {
        if (records.sizeInBytes() == 0)
        {
            return false;
        }
        if (records instanceof MemoryRecords memory)
        {
            final Integer size = memory.firstBatchSize();
            return size == null || size > memory.sizeInBytes();
        }
        // A file slice yields only whole batches.
        return !records.batches().iterator().hasNext();
    }
}

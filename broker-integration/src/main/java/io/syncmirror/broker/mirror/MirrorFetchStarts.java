package io.syncmirror.broker.mirror;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.function.LongSupplier;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.syncmirror.protocol.MirrorPartitionState;
import io.syncmirror.broker.replica.Partition;
import io.syncmirror.broker.storage.PartitionLog;

/**
 * PREPARING and MIRRORING on the coordinator's thread: a partition's alignment with the source (failback's
 * truncation to the source's last mirrored offset), the start of its fetch once MIRRORING is committed, and its
 * moves to the source's new leader (looked up off this thread, so a source that answers nothing holds up no other
 * partition).
 */
final class MirrorFetchStarts
{
    private static final Logger LOG = LoggerFactory.getLogger(MirrorCoordinator.class);

    private final MirrorFetchers fetchers;
    private final MirrorStateWrites stateWrites;
    private final MirrorCoordinator.LastMirroredLookup lastMirrored;
    private final Executor leaderLookups;
    private final Function<String, SourceCluster> sources;
    private final Function<String, Map<String, String>> securityConfigs;
    /** When the current tick began: a leader lookup this tick shares the topic's describe with its others. */
    private final LongSupplier tickStartNanos;
    private final LongSupplier clockMs;
    private final Runnable wakeup;
    /** Mirrors whose source did not answer this tick's {@link #describeAhead} (coordinator thread). */
    private final java.util.Set<String> unansweredThisTick = new java.util.HashSet<>();

    MirrorFetchStarts(final MirrorFetchers fetchers, final MirrorStateWrites stateWrites,
        final MirrorCoordinator.LastMirroredLookup lastMirrored, final Executor leaderLookups,
        final Function<String, SourceCluster> sources, final Function<String, Map<String, String>> securityConfigs,
        final LongSupplier tickStartNanos, final LongSupplier clockMs, final Runnable wakeup)
    {
        this.fetchers = fetchers;
        this.stateWrites = stateWrites;
        this.lastMirrored = lastMirrored;
        this.leaderLookups = leaderLookups;
        this.sources = sources;
        this.securityConfigs = securityConfigs;
        this.tickStartNanos = tickStartNanos;
        this.clockMs = clockMs;
        this.wakeup = wakeup;
    }

    /**
     * Describes each mirror's {@code topics} at its source in one request before the tick's steps look their
     * leaders up (CoordinatedPartitions#topicsToLookUp). When a mirror's source does not answer, the lookups of
     * this tick that needed a fresh leader fail at once ({@link #sourceLeader}) instead of waiting again.
     */
    void describeAhead(final Map<String, java.util.Set<String>> topicsByMirror)
    {
        unansweredThisTick.clear();
        for (final Map.Entry<String, java.util.Set<String>> entry : topicsByMirror.entrySet())
        {
            try
            {
                if (!sources.apply(entry.getKey()).describeAhead(entry.getValue(), tickStartNanos.getAsLong()))
                {
                    unansweredThisTick.add(entry.getKey());
                }
            }
            catch (final RuntimeException e)
            {
                LOG.debug("Mirror '{}': describing {} topics at the source ahead failed: {}", entry.getKey(),
                    entry.getValue().size(), e.toString());
            }
        }
    }

    /** PREPARING: aligns the log with the source once, waits for the ISR's truncation, then starts fetching. */
    void prepare(final MirrorPartition mirror)
    {
        final SourceCluster source = sources.apply(mirror.mirrorName);
        final Node leader = sourceLeader(mirror, source);
        if (leader == null)
        {
            return;
        }
        if (!mirror.aligned)
        {
            align(mirror, source, leader);
            mirror.aligned = true;
        }
        // KIP-1279: every ISR member must have truncated before the mirror appends anything new; with fewer than
        // min.insync.replicas available, skip and retry on the next tick.
        if (!mirror.partition.isrCaughtUpSinceTruncation())
        {
            noteIsrBelowMin(mirror);
            return;
        }
        // Fetching starts once MIRRORING is committed (this tick when the write was quick, else a later one, from
        // MIRRORING's ensureFetching): a crash must never find fetched records under a state that would align them
        // away again.
        stateWrites.transitionAsync(mirror, MirrorPartitionState.MIRRORING);
        if (MirrorStateWrites.writePending(mirror))
        {
            return;
        }
        mirror.partition.mirrorAppends(true);
        fetchers.add(mirror, source, leader, securityConfigs.apply(mirror.mirrorName));
    }

    /**
     * Failback's first phase: truncate to the last offset the source mirrored from this cluster before it failed
     * over (bounded by where this log's copy of that epoch ends), or to 0 when the source cannot tell. The second
     * phase is the fetch itself: its LastFetchedEpoch makes the source answer DivergingEpoch where the histories
     * part.
     */
    private void align(final MirrorPartition mirror, final SourceCluster source, final Node leader)
    {
        final PartitionLog log = mirror.partition.log();
        if (log.logEndOffset() == 0)
        {
            return; // nothing to align: a new mirror topic
        }
        final Optional<long[]> last;
        try
        {
            last = lastMirrored.lastMirrored(source, leader, mirror.topicPartition.topic(), mirror.topicId,
                mirror.topicPartition.partition());
        }
        catch (final RuntimeException e)
        {
            throw e;
        }
        catch (final Exception e)
        {
            throw new KafkaException("LastMirroredOffsets from the source of mirror '" + mirror.mirrorName +
                "' failed: " + e.getMessage(), e);
        }
        long target = 0L;
        if (last.isPresent() && last.get()[0] >= 0)
        {
            target = last.get()[0];
            final int lastEpoch = (int)last.get()[1];
            if (lastEpoch >= 0)
            {
                final Optional<PartitionLog.EpochEndOffset> ours = log.endOffsetForEpoch(lastEpoch);
                if (ours.isPresent() && ours.get().endOffset() >= 0)
                {
                    target = Math.min(target, ours.get().endOffset());
                }
            }
        }
        if (target < log.logEndOffset())
        {
            LOG.info("Mirror '{}' {}: aligning with the source: truncating from {} to {} ({})", mirror.mirrorName,
                mirror.topicPartition, log.logEndOffset(), target,
                last.isPresent() ? "its last mirrored offset " + last.get()[0] + ", epoch " + last.get()[1] :
                    "the source cannot tell its last mirrored offset");
            final long leo = mirror.partition.truncateAsMirrorLeader(target, target < log.logStartOffset(),
                clockMs.getAsLong(), false);
            if (leo < 0)
            {
                throw new KafkaException("lost leadership while truncating " + mirror.topicPartition);
            }
        }
    }

    /** MIRRORING: a partition not fetched yet (led anew) starts; a fetched one follows its source leader's moves. */
    void ensureFetching(final MirrorPartition mirror)
    {
        if (mirror.fetching)
        {
            maybeMoveToNewLeader(mirror);
            return;
        }
        final SourceCluster source = sources.apply(mirror.mirrorName);
        final Node leader = sourceLeader(mirror, source);
        if (leader != null)
        {
            mirror.partition.mirrorAppends(true);
            fetchers.add(mirror, source, leader, securityConfigs.apply(mirror.mirrorName));
        }
    }

    /**
     * A fetching partition whose source broker stopped answering (a crash gives no NOT_LEADER_OR_FOLLOWER) moves
     * once the source names another leader; until then its fetcher keeps retrying. The lookup runs off this
     * thread, one at a time per broker, so that a source that answers nothing never holds up the other
     * partitions' transitions (a failover of a dead source above all).
     */
    private void maybeMoveToNewLeader(final MirrorPartition mirror)
    {
        final Node moved = mirror.relookedLeader;
        if (moved != null)
        {
            mirror.relookedLeader = null;
            if (moved.id() != mirror.sourceLeaderId && mirror.fetching)
            {
                fetchers.add(mirror, sources.apply(mirror.mirrorName), moved, securityConfigs.apply(mirror.mirrorName));
            }
            return;
        }
        if (!mirror.leaderLookupNeeded || mirror.leaderRelookupRunning)
        {
            return;
        }
        final SourceCluster source = sources.apply(mirror.mirrorName);
        mirror.leaderLookupNeeded = false;
        mirror.leaderRelookupRunning = true;
        try
        {
            leaderLookups.execute(() ->
            {
                try
                {
                    source.leader(mirror.topicPartition.topic(), mirror.topicId, mirror.topicPartition.partition(),
                        true).ifPresent(leader -> mirror.relookedLeader = leader);
                }
                catch (final RuntimeException e)
                {
                    LOG.debug("Mirror '{}' {}: looking up the source leader again failed: {}", mirror.mirrorName,
                        mirror.topicPartition, e.toString());
                }
                finally
                {
                    mirror.leaderRelookupRunning = false;
                    wakeup.run();
                }
            });
        }
        catch (final java.util.concurrent.RejectedExecutionException e)
        {
            mirror.leaderRelookupRunning = false; // closing
        }
    }

    /**
     * A partition whose ISR stays below min.insync.replicas (a mirror topic with fewer replicas than its synced
     * min.insync.replicas, or replicas down) would wait in PREPARING with nothing said: say it in the partition's
     * last error, which describe shows, until the fetcher's first success clears it. Set once, not every tick.
     */
    private static void noteIsrBelowMin(final MirrorPartition mirror)
    {
        final Partition.Role role = mirror.partition.role();
        if (role.leader() && role.isr().size() < role.minIsr() && mirror.lastError != Errors.NOT_ENOUGH_REPLICAS)
        {
            mirror.error(Errors.NOT_ENOUGH_REPLICAS, "the ISR of " + mirror.topicPartition + " has " +
                role.isr().size() + " of the " + role.minIsr() + " replicas min.insync.replicas asks for; "
                + "mirroring starts when enough have joined");
        }
    }

    private Node sourceLeader(final MirrorPartition mirror, final SourceCluster source)
    {
        if (mirror.leaderLookupNeeded && unansweredThisTick.contains(mirror.mirrorName))
        {
            // One wait for a source that does not answer per tick, not one per topic on top of it.
            throw new KafkaException("the source cluster of mirror '" + mirror.mirrorName + "' did not answer a "
                + "describe of its topics this tick");
        }
        // A lookup this tick shares the topic's describe with the topic's other partitions looked up this tick.
        final Optional<Node> leader = source.leader(mirror.topicPartition.topic(), mirror.topicId,
            mirror.topicPartition.partition(),
            mirror.leaderLookupNeeded ? tickStartNanos.getAsLong() : SourceCluster.ANY_AGE);
        mirror.leaderLookupNeeded = leader.isEmpty();
        if (leader.isEmpty())
        {
            mirror.error(Errors.LEADER_NOT_AVAILABLE, "the source has no leader for " + mirror.topicPartition);
            return null;
        }
        return leader.get();
    }
}

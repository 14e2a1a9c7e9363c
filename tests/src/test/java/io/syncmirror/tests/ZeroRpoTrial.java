package io.syncmirror.tests;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.ConfigResource;

import io.syncmirror.protocol.MirrorPartitionState;
import io.syncmirror.protocol.MirrorType;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The kill-and-check harness for zero-RPO trials: a source cluster and one or more destination clusters of broker
 * processes ({@link ProcessCluster}: the repo's script and example configs), a topic with replication factor 3 and
 * min ISR 2 on every side, mirrors made with the operator's CLI ({@link MirrorCli}), an acks=all load whose every
 * acknowledgement is entered in an {@link AckLedger}, the faults (SIGKILL, SIGSTOP, controlled shutdown, restart)
 * at points the trial's seed chooses, and the check: every source broker SIGKILLed at once, the topic failed over
 * on a destination, and every acknowledged record looked up there by partition, offset and bytes.
 *
 * <p>Points in a trial are counted in acknowledgements, not in seconds: on a loaded machine a second holds more or
 * fewer records, an acknowledgement count always the same. Every step is written to the trial's log (stdout, and
 * {@link #log()}) with its time since the start, so a failing seed tells what it did.
 *
 * <p>Not thread-safe: the test's thread drives it; the load's producer thread only writes the ledger.
 */
final class ZeroRpoTrial implements AutoCloseable
{
    static final String TOPIC = "orders";
    static final int BROKERS = 3;
    static final short REPLICATION_FACTOR = 3;
    static final int MIN_INSYNC_REPLICAS = 2;
    /** At least this many acknowledged records before the final kill: enough that a lost tail cannot hide. */
    static final long MIN_ACKED = 10_000;
    /** The destinations' replica.lag.time.max.ms; a pause longer than it drops a replica from the ISR. */
    static final long REPLICA_LAG_TIME_MAX_MS = 3_000;
    /** The destinations' and sources' broker.session.timeout.ms: a paused or dead broker is fenced after it. */
    static final long SESSION_TIMEOUT_MS = 3_000;
    /**
     * The longest the load may stall across a fault: a replica's eviction from the ISR (replica.lag.time.max.ms)
     * or a dead leader's fencing (broker.session.timeout.ms), the mirror's reaction to either (its backoffs, about
     * 1 s) and a margin of two for a loaded 2-core machine.
     */
    static final long STALL_LIMIT_MS = 2 * (REPLICA_LAG_TIME_MAX_MS + SESSION_TIMEOUT_MS + 1_000);
    private static final long WAIT_MS = 60_000;
    /** How long {@link #check} waits for the destination's HW to pass the acknowledged offsets before it reads. */
    private static final long SETTLE_MS = 15_000;

    private final long seed;
    private final Random random;
    private final double injectedDelayMs;
    private final int partitions;
    private final double recordsPerSec;
    private final ProcessCluster source;
    private final List<ProcessCluster> destinations = new ArrayList<>();
    private final List<String> log = new ArrayList<>();
    private final long startNs = System.nanoTime();
    private final AckLedger ledger = new AckLedger(TOPIC);
    private AckedLoad load;

    /**
     * Writes the configs of a source and {@code destinationCount} destination clusters under {@code dir} and
     * launches them all at once; the destinations' mirror links carry {@code injectedDelayMs} each way. The seed
     * fixes the partition count, the rate and every choice the scenario asks for.
     */
    ZeroRpoTrial(final Path dir, final long seed, final int destinationCount, final double injectedDelayMs)
        throws IOException, InterruptedException
    {
        this(dir, seed, destinationCount, injectedDelayMs, Map.of(), ProcessCluster.DEFAULT_HEAP);
    }

    /** The same with {@code brokerConfig} on every broker of every cluster and each broker's heap options. */
    ZeroRpoTrial(final Path dir, final long seed, final int destinationCount, final double injectedDelayMs,
        final Map<String, String> brokerConfig, final String heap) throws IOException, InterruptedException
    {
        this(dir, seed, destinationCount, injectedDelayMs, brokerConfig, heap, ClusterSecurity.PLAINTEXT);
    }

    /**
     * The same with every cluster secured as {@code security} says: the brokers' listeners and links, and every
     * client of the trial (its admin, load, checker, the CLI and the mirror link) with the settings it names.
     */
    ZeroRpoTrial(final Path dir, final long seed, final int destinationCount, final double injectedDelayMs,
        final Map<String, String> brokerConfig, final String heap, final ClusterSecurity security)
        throws IOException, InterruptedException
    {
        this.seed = seed;
        this.random = new Random(seed);
        this.injectedDelayMs = injectedDelayMs;
        this.partitions = 3 + random.nextInt(4);
        this.recordsPerSec = 800 + random.nextInt(700);
        final Map<String, String> common = new HashMap<>(Mirrors.FAST);
        common.put("broker.heartbeat.interval.ms", "500");
        common.put("broker.session.timeout.ms", Long.toString(SESSION_TIMEOUT_MS));
        common.put("replica.lag.time.max.ms", Long.toString(REPLICA_LAG_TIME_MAX_MS));
        common.putAll(brokerConfig);
        final Map<String, String> destination = new HashMap<>(common);
        destination.put("mirror.link.injected.delay.ms", Double.toString(injectedDelayMs));
        this.source = new ProcessCluster("source", dir, BROKERS, common, heap, security);
        try
        {
            for (int i = 0; i < destinationCount; i++)
            {
                destinations.add(new ProcessCluster("destination-" + (char)('a' + i), dir, BROKERS, destination,
                    heap, security));
            }
            source.launch();
            for (final ProcessCluster cluster : destinations)
            {
                cluster.launch();
            }
            source.awaitUp();
            for (final ProcessCluster cluster : destinations)
            {
                cluster.awaitUp();
            }
            note("clusters up: source %s; destinations %s; %d partitions, %.0f records/s, %.1f ms link delay; "
                + "configs and broker logs under %s", source.bootstrapServers(),
                destinations.stream().map(ProcessCluster::bootstrapServers).toList(), partitions, recordsPerSec,
                injectedDelayMs, dir);
        }
        catch (final IOException | InterruptedException | RuntimeException | AssertionError e)
        {
            close();
            throw e;
        }
    }

    /** The trial's own random source: every choice a scenario makes comes from it, so a seed reproduces. */
    Random random()
    {
        return random;
    }

    int partitions()
    {
        return partitions;
    }

    ProcessCluster source()
    {
        return source;
    }

    ProcessCluster destination(final int index)
    {
        return destinations.get(index);
    }

    AckLedger ledger()
    {
        return ledger;
    }

    AckedLoad load()
    {
        return load;
    }

    double recordsPerSec()
    {
        return recordsPerSec;
    }

    /** Every step so far, one line each. */
    List<String> log()
    {
        return List.copyOf(log);
    }

    /** Writes a step to the trial's log, stamped with the time since the trial started. */
    void note(final String format, final Object... args)
    {
        final String line = String.format("[seed %d +%6.1f s] ", seed, (System.nanoTime() - startNs) / 1e9) +
            String.format(format, args);
        log.add(line);
        System.out.println(line);
    }

    /** Creates the topic on the source (RF 3, min ISR 2) and waits for every partition's full ISR. */
    void createTopic() throws Exception
    {
        try (Admin admin = source.admin())
        {
            Clients.createTopic(admin, TOPIC, partitions, REPLICATION_FACTOR,
                Map.of("min.insync.replicas", Integer.toString(MIN_INSYNC_REPLICAS)));
        }
        note("topic %s: %d partitions, RF %d, min ISR %d", TOPIC, partitions, REPLICATION_FACTOR,
            MIN_INSYNC_REPLICAS);
    }

    /**
     * Mirrors the topic onto destination {@code index} as mirror {@code mirror} with the CLI ({@code --create},
     * {@code --add}, with {@code --sync} for SYNC), waits until every partition mirrors and the effective type is
     * {@code type}, and checks that the mirror topic has the destination's RF 3 and min ISR 2.
     */
    void mirror(final int index, final String mirror, final MirrorType type) throws Exception
    {
        mirror(index, mirror, type, List.of(TOPIC));
    }

    /**
     * The same for {@code topics}, added with one {@code --add}; each has the trial's partition count, RF 3 and
     * min ISR 2 on the source.
     */
    void mirror(final int index, final String mirror, final MirrorType type, final List<String> topics)
        throws Exception
    {
        final ProcessCluster destination = destinations.get(index);
        MirrorCli.create(destination, mirror, source);
        MirrorCli.add(destination, mirror, String.join(",", topics), type == MirrorType.SYNC, source);
        for (final String topic : topics)
        {
            TrialMirrors.awaitState(destination, mirror, topic, partitions, MirrorPartitionState.MIRRORING, WAIT_MS);
            TrialMirrors.awaitEffective(destination, mirror, topic, type, WAIT_MS);
        }
        try (Admin admin = destination.admin())
        {
            for (final String topic : topics)
            {
                for (final TopicPartitionInfo partition : Clients.describe(admin, topic).partitions())
                {
                    assertEquals(REPLICATION_FACTOR, partition.replicas().size(),
                        () -> "mirror topic " + topic + " partition " + partition + " on " + destination.name());
                }
                final ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
                final Config config = admin.describeConfigs(List.of(resource)).all().get(30, TimeUnit.SECONDS)
                    .get(resource);
                assertEquals(Integer.toString(MIN_INSYNC_REPLICAS), config.get("min.insync.replicas").value(),
                    () -> "min.insync.replicas of the mirror topic " + topic + " on " + destination.name());
            }
        }
        note("mirror %s on %s: %s, every partition of %s MIRRORING", mirror, destination.name(), type, topics);
    }

    /** Starts the acks=all load on the source at the seed's rate. */
    void startLoad()
    {
        startLoad(recordsPerSec);
    }

    /** Starts the acks=all load on the source at {@code rate} records per second. */
    void startLoad(final double rate)
    {
        load = new AckedLoad(source.bootstrapServers(), source.security().clientOverrides(), ledger, partitions, seed,
            rate).start();
        note("load started at %.0f records/s", rate);
    }

    /** Waits until at least {@code count} records are acknowledged; fails with the mirror's state if not. */
    void awaitAcked(final long count, final String mirror, final int index) throws InterruptedException
    {
        final ProcessCluster destination = destinations.get(index);
        TrialMirrors.awaitOrFail(() -> ledger.ackedCount() >= count, WAIT_MS,
            () -> "only " + ledger.ackedCount() + " of " + count + " records acknowledged (" +
                ledger.failedCount() + " sends failed); " + TrialMirrors.summary(destination, mirror, TOPIC) + "; " +
                sourceSummary());
        note("%d records acknowledged", ledger.ackedCount());
    }

    /**
     * The source side of every partition, for a failure message: its leader, ISR, HW and the highest acknowledged
     * offset, so that a stall shows whether the source's own ISR or the mirror held the HW.
     */
    String sourceSummary()
    {
        final StringBuilder text = new StringBuilder("source " + TOPIC + ":");
        try (Admin admin = source.admin())
        {
            final List<TopicPartitionInfo> described = admin.describeTopics(List.of(TOPIC)).allTopicNames()
                .get(10, TimeUnit.SECONDS).get(TOPIC).partitions();
            final List<TopicPartition> tps = topicPartitions();
            final Map<TopicPartition, Long> ends = Clients.endOffsets(admin, tps, 10_000);
            for (final TopicPartitionInfo info : described)
            {
                text.append(String.format(" [p%d leader %s isr %s hw %d acked-max %d]", info.partition(),
                    info.leader() == null ? "none" : info.leader().id(),
                    info.isr().stream().map(node -> node.id()).toList(),
                    ends.get(new TopicPartition(TOPIC, info.partition())),
                    ledger.maxAckedOffset(info.partition())));
            }
            return text.toString();
        }
        catch (final Exception e)
        {
            return text.append(" not described: ").append(e).toString();
        }
    }

    /** The highest acknowledged offset of every partition, now. */
    long[] ackedOffsets()
    {
        final long[] offsets = new long[partitions];
        for (int p = 0; p < partitions; p++)
        {
            offsets[p] = ledger.maxAckedOffset(p);
        }
        return offsets;
    }

    /**
     * Waits until every partition has an acknowledgement past {@code before}: the load goes on across a fault on
     * all partitions, not only on those the fault did not touch.
     */
    void awaitAcksOnEveryPartitionAfter(final long[] before, final String what) throws InterruptedException
    {
        TrialMirrors.awaitOrFail(() ->
        {
            for (int p = 0; p < partitions; p++)
            {
                if (ledger.maxAckedOffset(p) <= before[p])
                {
                    return false;
                }
            }
            return true;
        }, WAIT_MS, () -> "acknowledgements stopped on some partition after " + what + ": before " +
            Arrays.toString(before) + ", now " + Arrays.toString(ackedOffsets()));
        note("acknowledgements go on on every partition after %s (%d acknowledged, longest stall so far %.0f ms)",
            what, ledger.ackedCount(), load.longestAckGapMs());
    }

    /** The leader's node id of {@code partition} of the topic on {@code cluster}, -1 when it has none. */
    int leader(final ProcessCluster cluster, final int partition) throws Exception
    {
        try (Admin admin = cluster.admin())
        {
            final TopicPartitionInfo info = Clients.describe(admin, TOPIC).partitions().get(partition);
            return info.leader() == null ? -1 : info.leader().id();
        }
    }

    /** Waits until every partition of the topic on {@code cluster} has a leader other than {@code node}. */
    void awaitLeadersAwayFrom(final ProcessCluster cluster, final int node) throws InterruptedException
    {
        try (Admin admin = cluster.admin(cluster.bootstrapServersExcept(node)))
        {
            Clients.awaitCondition(() ->
            {
                try
                {
                    return Clients.describe(admin, TOPIC).partitions().stream()
                        .allMatch(p -> p.leader() != null && p.leader().id() != node);
                }
                catch (final Exception e)
                {
                    return false;
                }
            }, WAIT_MS, cluster.name() + ": the topic's leaders never moved away from broker " + node);
        }
        note("%s: every partition led by a broker other than %d", cluster.name(), node);
    }

    /** Waits until every partition of the topic on {@code cluster} has all {@value #BROKERS} replicas in its ISR. */
    void awaitFullIsr(final ProcessCluster cluster) throws InterruptedException
    {
        try (Admin admin = cluster.admin())
        {
            Clients.awaitCondition(() ->
            {
                try
                {
                    return Clients.describe(admin, TOPIC).partitions().stream()
                        .allMatch(p -> p.leader() != null && p.isr().size() == BROKERS);
                }
                catch (final Exception e)
                {
                    return false;
                }
            }, WAIT_MS, cluster.name() + ": the topic's ISR never got all " + BROKERS + " replicas back");
        }
        note("%s: every partition's ISR holds all %d replicas", cluster.name(), BROKERS);
    }

    /**
     * Waits until no partition of the topic on {@code cluster} lists {@code node} as leader or in its ISR, asking
     * only the other brokers (a paused broker accepts connections and never answers).
     */
    void awaitOutOfIsr(final ProcessCluster cluster, final int node) throws InterruptedException
    {
        try (Admin admin = cluster.admin(cluster.bootstrapServersExcept(node)))
        {
            Clients.awaitCondition(() ->
            {
                try
                {
                    return Clients.describe(admin, TOPIC).partitions().stream().allMatch(p -> p.leader() != null &&
                        p.leader().id() != node && p.isr().stream().noneMatch(r -> r.id() == node));
                }
                catch (final Exception e)
                {
                    return false;
                }
            }, WAIT_MS, cluster.name() + ": broker " + node + " never left the topic's ISR");
        }
        note("%s: broker %d is out of every partition's ISR", cluster.name(), node);
    }

    /**
     * A broker of {@code cluster} other than the one that runs its active controller, chosen by the seed: a fault
     * on the active controller's node is a scenario of its own.
     */
    int brokerOtherThanActiveController(final ProcessCluster cluster) throws Exception
    {
        final int active = activeController(cluster);
        final List<Integer> others = new ArrayList<>();
        for (int node = 1; node <= cluster.size(); node++)
        {
            if (node != active)
            {
                others.add(node);
            }
        }
        return others.get(random.nextInt(others.size()));
    }

    /** The node whose controller is active on {@code cluster} now: the metadata quorum's leader. */
    int activeController(final ProcessCluster cluster) throws Exception
    {
        try (Admin admin = cluster.admin())
        {
            return admin.describeMetadataQuorum().quorumInfo().get(30, TimeUnit.SECONDS).leaderId();
        }
    }

    /**
     * The check: SIGKILLs every source broker at once under the load, fails the topic over on destination
     * {@code index} with the CLI, waits until every partition is STOPPED and reads the topic there. Returns the
     * ledger's verdict; the caller asserts on it.
     */
    AckLedger.Verdict killSourceAndCheck(final int index, final String mirror) throws Exception
    {
        killSource();
        failOver(index, mirror, List.of(TOPIC));
        return check(index);
    }

    /** SIGKILLs every source broker at once under the load, then closes the load's producer. */
    void killSource() throws InterruptedException
    {
        note("before the kill: %s", sourceSummary());
        final long ackedBefore = ledger.ackedCount();
        source.killAll();
        load.stop();
        note("every source broker SIGKILLed at %d acknowledgements (%d by the time the producer closed, %d sends "
            + "failed)", ackedBefore, ledger.ackedCount(), ledger.failedCount());
    }

    /** Fails {@code topics} over on destination {@code index} with the CLI and waits until each is STOPPED. */
    void failOver(final int index, final String mirror, final List<String> topics) throws Exception
    {
        final ProcessCluster destination = destinations.get(index);
        MirrorCli.failOver(destination, mirror, String.join(",", topics));
        for (final String topic : topics)
        {
            TrialMirrors.awaitState(destination, mirror, topic, partitions, MirrorPartitionState.STOPPED,
                WAIT_MS);
        }
        note("failed over on %s: every partition of %s STOPPED", destination.name(), topics);
    }

    /**
     * Looks every acknowledged record up on destination {@code index}; the caller asserts on the verdict. It reads
     * what a consumer can read, below each partition's HW. A failover ends with an epoch bump, after which the
     * destination's HW waits for its followers to fetch in the new epoch (a follower whose fetch met the change backs
     * off first), so an acknowledged record can be in every destination replica's log and not yet readable for
     * about a second. The check therefore first waits, at most {@link #SETTLE_MS}, until each partition's HW passes
     * its highest acknowledged offset; a record still above the HW then counts as missing.
     */
    AckLedger.Verdict check(final int index)
    {
        final ProcessCluster destination = destinations.get(index);
        final long settleStartMs = System.currentTimeMillis();
        final boolean settled = awaitAcknowledgedBelowHighWatermark(destination);
        note("destination %s: %s after %d ms", destination.name(), settled ?
            "every partition's HW passed its highest acknowledged offset" : "some HW still below an acknowledged " +
            "offset (reading anyway)", System.currentTimeMillis() - settleStartMs);
        final AckLedger.Verdict verdict = ledger.verify(destination.bootstrapServers(),
            destination.security().clientOverrides(), partitions, WAIT_MS);
        note("check on %s: %s; min ack latency %.1f ms, longest stall %.0f ms", destination.name(), verdict,
            load.minAckLatencyMs(), load.longestAckGapMs());
        return verdict;
    }

    /** The trial topic's partitions. */
    private List<TopicPartition> topicPartitions()
    {
        final List<TopicPartition> tps = new ArrayList<>();
        for (int p = 0; p < partitions; p++)
        {
            tps.add(new TopicPartition(TOPIC, p));
        }
        return tps;
    }

    /** Whether every partition's HW on {@code destination} passed its highest acknowledged offset within SETTLE_MS. */
    private boolean awaitAcknowledgedBelowHighWatermark(final ProcessCluster destination)
    {
        final List<TopicPartition> tps = topicPartitions();
        final long deadlineMs = System.currentTimeMillis() + SETTLE_MS;
        try (Admin admin = destination.admin())
        {
            while (true)
            {
                try
                {
                    final Map<TopicPartition, Long> ends = Clients.endOffsets(admin, tps, SETTLE_MS);
                    if (tps.stream().allMatch(tp -> ends.get(tp) > ledger.maxAckedOffset(tp.partition())))
                    {
                        return true;
                    }
                }
                catch (final Exception e)
                {
                    // Leaders may still be moving: ask again until the bound.
                }
                if (System.currentTimeMillis() > deadlineMs)
                {
                    return false;
                }
                Thread.sleep(100);
            }
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * From now on every acknowledgement must wait for a sync destination again: the shortest acknowledgement time
     * that {@link #assertNothingLost} bounds by the link's round trip is measured anew from here.
     */
    void gatedFromNow()
    {
        load.restartMinAckLatency();
        note("acknowledgements gated from here on: their shortest time is measured anew");
    }

    /**
     * Asserts the zero-RPO outcome: enough acknowledgements, none twice, none lost, each after a link RTT, and no
     * stall of the load over {@link #STALL_LIMIT_MS}.
     */
    void assertNothingLost(final AckLedger.Verdict verdict)
    {
        final String context = String.join("\n", log);
        assertTrue(verdict.acked() >= MIN_ACKED, () -> "too few acknowledged records: " + verdict + "\n" + context);
        assertEquals(0, verdict.duplicateAcks(), () -> "offsets acknowledged twice: " + verdict + "\n" + context);
        assertEquals(0, verdict.lost(), () -> "acknowledged records lost: " + verdict + "\n" + context);
        // Every acknowledgement waited for a destination: at least the injected delay there and back.
        assertTrue(load.minAckLatencyMs() >= 2 * injectedDelayMs, () -> "an acknowledgement came sooner than the "
            + "mirror link's round trip (" + load.minAckLatencyMs() + " ms)\n" + context);
        // Zero RPO at the cost of availability would be no product: a fault may stall the load only so long.
        assertTrue(load.longestAckGapMs() <= STALL_LIMIT_MS, () -> "the load stalled for " +
            load.longestAckGapMs() + " ms, over the " + STALL_LIMIT_MS + " ms a fault's detection and recovery take\n"
            + context);
    }

    @Override
    public void close()
    {
        if (load != null)
        {
            load.close();
        }
        source.close();
        for (final ProcessCluster destination : destinations)
        {
            destination.close();
        }
    }
}

package io.syncmirror.tests;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import io.syncmirror.broker.cluster.EmbeddedCluster;
import io.syncmirror.broker.mirror.MirrorPartitionState;
import io.syncmirror.broker.replica.Partition;
import io.syncmirror.protocol.MirrorType;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Zero-RPO trials: a source cluster of broker processes under a continuous acks=all load is SIGKILLed whole, the
 * destination (in this JVM, 5 ms of injected one-way delay on its mirror link) is failed over, and every record
 * the producer saw acknowledged must be on the destination at its offset with its bytes. The same trial in ASYNC
 * mode is the negative control: it must find acknowledged records missing, or the check proves nothing.
 *
 * <p>Each seed fixes the trial's shape: source brokers and replication factor, partition count, produce rate and
 * how many acknowledgements the kill waits for (at least 10,000). A failing seed reproduces the same shape; the
 * kill's timing against the mirror's fetch cycle is what varies between runs.
 */
@Tag("system")
class ZeroRpoTrialTest
{
    private static final String MIRROR = "dr";
    private static final String TOPIC = "orders";
    private static final double INJECTED_DELAY_MS = 5;
    private static final long MIN_ACKED = 10_000;
    private static final long KILL_GRACE_MS = 500;
    /** Bytes per second the ASYNC control's mirror may fetch: below its produce rate (over 150 KB/s). */
    private static final long ASYNC_CONTROL_THROTTLE_BYTES = 64 * 1024;

    @TempDir
    Path dir;

    /** The shape of one trial, derived from its seed. */
    record Shape(long seed, int sourceBrokers, int partitions, double recordsPerSec, long killAfterAcks)
    {
        static Shape of(final long seed)
        {
            final Random random = new Random(seed);
            final int sourceBrokers = 1 + (int)(seed % 2);
            final int partitions = 3 + random.nextInt(4);
            final double recordsPerSec = 1500 + random.nextInt(1500);
            final long killAfterAcks = MIN_ACKED + random.nextInt(3000);
            return new Shape(seed, sourceBrokers, partitions, recordsPerSec, killAfterAcks);
        }

        @Override
        public String toString()
        {
            return String.format("seed %d: %d source broker(s) rf %d, %d partitions, %.0f records/s, "
                + "kill after %d acks", seed, sourceBrokers, sourceBrokers, partitions, recordsPerSec, killAfterAcks);
        }
    }

    static Stream<Arguments> syncSeeds()
    {
        return Stream.of(11L, 22L, 44L).map(seed -> Arguments.of(Shape.of(seed)));
    }

    static Stream<Arguments> asyncSeeds()
    {
        return syncSeeds();
    }

    @ParameterizedTest(name = "zero-RPO SYNC {0}")
    @MethodSource("syncSeeds")
    @DisplayName("zero-RPO SYNC: after SIGKILL of every source broker under acks=all load and failover, every "
        + "acknowledged record is on the destination at its offset with its bytes")
    @Timeout(90)
    void shouldLoseNoAcknowledgedRecordInSyncMode(final Shape shape) throws Exception
    {
        final Outcome outcome = runTrial(shape, MirrorType.SYNC);
        assertTrue(outcome.verdict.acked() >= MIN_ACKED, "too few acknowledged records: " + outcome);
        assertEquals(0, outcome.verdict.duplicateAcks(), () -> "offsets acknowledged twice: " + outcome);
        assertEquals(0, outcome.verdict.lost(), () -> "acknowledged records lost in SYNC mode: " + outcome);
        // Each acknowledgement waited for the destination: at least the injected delay there and back.
        assertTrue(outcome.minAckLatencyMs >= 2 * INJECTED_DELAY_MS,
            () -> "an acknowledgement came sooner than the mirror link's round trip: " + outcome);
    }

    @ParameterizedTest(name = "zero-RPO negative control ASYNC {0}")
    @MethodSource("asyncSeeds")
    @DisplayName("zero-RPO negative control: the same trial in ASYNC mode finds acknowledged records missing")
    @Timeout(90)
    void shouldFindAcknowledgedRecordsMissingInAsyncMode(final Shape shape) throws Exception
    {
        final Outcome outcome = runTrial(shape, MirrorType.ASYNC);
        assertTrue(outcome.verdict.acked() >= MIN_ACKED, "too few acknowledged records: " + outcome);
        assertEquals(0, outcome.verdict.duplicateAcks(), () -> "offsets acknowledged twice: " + outcome);
        assertTrue(outcome.verdict.lost() > 0,
            () -> "the ASYNC control lost nothing, so the checker cannot tell loss from none: " + outcome);
    }

    /** What a trial measured. */
    record Outcome(Shape shape, MirrorType type, AckLedger.Verdict verdict, double minAckLatencyMs, long failedSends,
        long durationMs, String phases)
    {
        @Override
        public String toString()
        {
            return String.format("zero-RPO %s %s: %s; failed sends %d; min ack latency %.1f ms; %d ms (%s)", type,
                shape, verdict, failedSends, minAckLatencyMs, durationMs, phases);
        }
    }

    private Outcome runTrial(final Shape shape, final MirrorType type) throws Exception
    {
        final long startMs = System.currentTimeMillis();
        final Map<String, String> destinationConfig = new HashMap<>(Mirrors.FAST);
        destinationConfig.put("mirror.link.injected.delay.ms", Double.toString(INJECTED_DELAY_MS));
        if (type == MirrorType.ASYNC)
        {
            // The control needs an asynchronous lag that the responses already on their way when the source dies
            // cannot close (seen once without it: a lag of one fetch, delivered after the kill, lost nothing). A
            // mirror throttle below the produce rate makes the lag grow, as async lag does under load; SYNC runs
            // have none, and the checker is the same.
            destinationConfig.put("mirror.replication.throttled.rate", Long.toString(ASYNC_CONTROL_THROTTLE_BYTES));
        }
        // The source JVMs boot while the destination starts in this one.
        try (SourceProcesses source = SourceProcesses.launched(dir, shape.sourceBrokers(), Map.of());
            EmbeddedCluster destination = EmbeddedCluster.start(1, destinationConfig))
        {
            source.awaitRegistered();
            return runTrial(shape, type, source, destination, startMs);
        }
    }

    private Outcome runTrial(final Shape shape, final MirrorType type, final SourceProcesses source,
        final EmbeddedCluster destination, final long startMs) throws Exception
    {
        try (Admin admin = Clients.admin(source.bootstrapServers()))
        {
            Clients.createTopic(admin, TOPIC, shape.partitions(), (short)shape.sourceBrokers(), Map.of());
        }
        final int destinationPort = destination.port(1);
        TrialMirrors.create(destinationPort, MIRROR, source.bootstrapServers());
        TrialMirrors.add(destinationPort, MIRROR, type, TOPIC);
        TrialMirrors.awaitState(destinationPort, MIRROR, TOPIC, shape.partitions(), MirrorPartitionState.MIRRORING,
            30_000);
        TrialMirrors.awaitEffective(destinationPort, MIRROR, TOPIC, type, 30_000);

        final AckLedger ledger = new AckLedger(TOPIC);
        final long loadStartMs = System.currentTimeMillis();
        final double minAckLatencyMs;
        final boolean killedWhileBehind;
        try (AckedLoad load = new AckedLoad(source.bootstrapServers(), ledger, shape.partitions(), shape.seed(),
            shape.recordsPerSec()).start())
        {
            TrialMirrors.awaitOrFail(() -> ledger.ackedCount() >= shape.killAfterAcks(), 45_000,
                () -> "only " + ledger.ackedCount() + " records acknowledged; " +
                    TrialMirrors.summary(destinationPort, MIRROR, TOPIC));
            // The kill waits (briefly) for a moment when the destination's log is seen behind an acknowledged
            // record: in ASYNC mode that moment comes within a fetch cycle, in SYNC mode it must never come.
            final long graceEndMs = System.currentTimeMillis() + KILL_GRACE_MS;
            boolean behind;
            while (!(behind = destinationBehindAnAck(destination, ledger, shape.partitions())) &&
                System.currentTimeMillis() < graceEndMs)
            {
                LockSupport.parkNanos(200_000L);
            }
            killedWhileBehind = behind;
            source.killAll();
            load.stop();
            minAckLatencyMs = load.minAckLatencyMs();
        }
        final long killedMs = System.currentTimeMillis();

        // Failover with the whole source dead: the partitions must still reach STOPPED.
        TrialMirrors.failOver(destinationPort, MIRROR, TOPIC);
        TrialMirrors.awaitState(destinationPort, MIRROR, TOPIC, shape.partitions(), MirrorPartitionState.STOPPED,
            30_000);
        final long stoppedMs = System.currentTimeMillis();
        final AckLedger.Verdict verdict = ledger.verify(destination.bootstrapServers(), shape.partitions(), 30_000);
        final long endMs = System.currentTimeMillis();
        final Outcome outcome = new Outcome(shape, type, verdict, minAckLatencyMs, ledger.failedCount(),
            endMs - startMs, String.format("killed %s; setup %d ms, load %d ms, failover %d ms, check %d ms",
                killedWhileBehind ? "with the destination seen behind an ack" :
                    "after the grace, the destination never seen behind an ack", loadStartMs - startMs,
                killedMs - loadStartMs, stoppedMs - killedMs, endMs - stoppedMs));
        System.out.println(outcome);
        return outcome;
    }

    /**
     * Whether some partition's destination log ends at or below an offset the source acknowledged. The ledger is
     * read before the log, so an acknowledgement that arrives in between cannot make a SYNC destination look
     * behind.
     */
    private static boolean destinationBehindAnAck(final EmbeddedCluster destination, final AckLedger ledger,
        final int partitions)
    {
        for (int p = 0; p < partitions; p++)
        {
            final long maxAckedOffset = ledger.maxAckedOffset(p);
            final Partition leader = AsyncMirroringTest.leader(destination, new TopicPartition(TOPIC, p));
            if (leader != null && leader.log().logEndOffset() <= maxAckedOffset)
            {
                return true;
            }
        }
        return false;
    }
}

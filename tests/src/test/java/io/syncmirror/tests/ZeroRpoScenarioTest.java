package io.syncmirror.tests;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import io.syncmirror.broker.mirror.SyncRegistrationLedger;
import io.syncmirror.protocol.MirrorType;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Zero-RPO trials on the {@link ZeroRpoTrial} harness: 3-broker source and destination clusters of broker processes,
 * RF 3 and min ISR 2 on both sides, 10 ms of injected one-way delay on every mirror link, an acks=all load, a fault
 * under it, then every source broker SIGKILLed, failover, and every acknowledged record looked up on the
 * destination. The ASYNC control runs the same topology with nothing but the link delay and must find loss, or the
 * check could not tell loss from none.
 *
 * <p>Seeds come from the system property {@code syncmirror.trial.seeds} (comma-separated; {@code mvn verify} runs
 * seed 1, the {@code zero-rpo-trials} profile seeds 1 to 5). A seed fixes the partition count, the rate and every
 * point and broker the scenario picks; a failing seed's log says what it did.
 */
@Tag("system")
class ZeroRpoScenarioTest
{
    private static final double INJECTED_DELAY_MS = 10;
    /**
     * The ASYNC control's link delay. Its loss window is one mirror fetch cycle: records acknowledged after the last
     * fetch response left the source and before the next fetch arrived. At 10 ms that window held nothing in a CI
     * run (10,980 acknowledged, none missing, on a machine busy beside it), as it did for the Streams DR control;
     * 40 ms makes it several dozen records at the trials' rate.
     */
    private static final double CONTROL_DELAY_MS = 40;
    private static final String MIRROR = "dr";

    /** Kept when a test fails: the brokers' configs and logs are what explains it. */
    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path dir;

    static Stream<Long> seeds()
    {
        return Arrays.stream(System.getProperty("syncmirror.trial.seeds", "1").split(",")).map(String::trim)
            .filter(s -> !s.isEmpty()).map(Long::parseLong);
    }

    /** The acknowledgement count at which a mid-run fault comes: after the load settled, well before the end. */
    private static long faultPoint(final ZeroRpoTrial trial)
    {
        return 2_000 + trial.random().nextInt(2_000);
    }

    /** The count at which the final kill comes: past {@link ZeroRpoTrial#MIN_ACKED}, at a seeded point. */
    private static long killPoint(final ZeroRpoTrial trial)
    {
        return Math.max(trial.ledger().ackedCount() + 2_000, ZeroRpoTrial.MIN_ACKED) + trial.random().nextInt(3_000);
    }

    @ParameterizedTest(name = "zero-RPO (a) SIGKILL of every source broker, failover: seed {0}")
    @MethodSource("seeds")
    @Timeout(300)
    void shouldLoseNothingWhenTheWholeSourceDies(final long seed) throws Exception
    {
        try (ZeroRpoTrial trial = new ZeroRpoTrial(dir, seed, 1, INJECTED_DELAY_MS))
        {
            startSyncLoad(trial);
            killSourceAndCheck(trial);
        }
    }

    @ParameterizedTest(name = "zero-RPO (a) over SASL_SSL: every listener, link and client TLS with SCRAM or PLAIN "
        + "logins, SIGKILL of every source broker, failover, and no broker saw a failed authentication: seed {0}")
    @MethodSource("seeds")
    @Timeout(300)
    void shouldLoseNothingWhenTheWholeSourceDiesOverSaslSsl(final long seed) throws Exception
    {
        final ClusterSecurity security = ClusterSecurity.saslSsl(dir);
        try (ZeroRpoTrial trial = new ZeroRpoTrial(dir, seed, 1, INJECTED_DELAY_MS, Map.of(),
            ProcessCluster.DEFAULT_HEAP, security))
        {
            startSyncLoad(trial);
            trial.awaitAcked(killPoint(trial), MIRROR, 0);
            // The source's counts before it dies: a plaintext connection to any listener is a failed TLS handshake.
            assertAuthenticatedOnly(trial, trial.source());
            trial.assertNothingLost(trial.killSourceAndCheck(0, MIRROR));
            assertAuthenticatedOnly(trial, trial.destination(0));
        }
    }

    /**
     * Every broker of {@code cluster} counted logins on both listeners (clients and brokers on PLAINTEXT, which
     * the map makes SASL_SSL; brokers on CONTROLLER) and no failed authentication: nothing reached it in plaintext
     * or with wrong credentials.
     */
    private static void assertAuthenticatedOnly(final ZeroRpoTrial trial, final ProcessCluster cluster)
        throws Exception
    {
        for (int node = 1; node <= cluster.size(); node++)
        {
            try (BrokerJmx jmx = BrokerJmx.attach(cluster, node))
            {
                for (final String listener : List.of("PLAINTEXT", "CONTROLLER"))
                {
                    final long failed = jmx.socketServerTotal(listener, "failed-authentication-total");
                    final long succeeded = jmx.socketServerTotal(listener, "successful-authentication-total");
                    trial.note("%s broker %d listener %s: %d logins, %d failed authentications", cluster.name(), node,
                        listener, succeeded, failed);
                    assertEquals(0, failed, cluster.name() + " broker " + node + " " + listener +
                        ": failed authentications");
                    assertTrue(succeeded > 0, cluster.name() + " broker " + node + " " + listener + ": no login");
                }
            }
        }
    }

    @ParameterizedTest(name = "zero-RPO (b) SIGKILL of a SYNC partition's destination leader, then (a): seed {0}")
    @MethodSource("seeds")
    @Timeout(300)
    void shouldLoseNothingAcrossADestinationLeaderKill(final long seed) throws Exception
    {
        try (ZeroRpoTrial trial = new ZeroRpoTrial(dir, seed, 1, INJECTED_DELAY_MS))
        {
            startSyncLoad(trial);
            final ProcessCluster destination = trial.destination(0);
            final int victim = leaderOfSomePartition(trial, destination);
            destination.kill(victim);
            trial.note("destination broker %d SIGKILLed: it led a SYNC partition", victim);
            trial.awaitLeadersAwayFrom(destination, victim);
            trial.awaitAcksOnEveryPartitionAfter(trial.ackedOffsets(), "the destination leader's kill");
            destination.launch(victim);
            destination.awaitUp();
            trial.awaitFullIsr(destination);
            trial.awaitAcksOnEveryPartitionAfter(trial.ackedOffsets(), "the restart of destination broker " + victim);
            killSourceAndCheck(trial);
        }
    }

    @ParameterizedTest(name = "zero-RPO (c) controlled shutdown of a source leader under SYNC load, then (a): seed {0}")
    @MethodSource("seeds")
    @Timeout(300)
    void shouldLoseNothingAcrossACleanSourceLeaderChange(final long seed) throws Exception
    {
        try (ZeroRpoTrial trial = new ZeroRpoTrial(dir, seed, 1, INJECTED_DELAY_MS))
        {
            startSyncLoad(trial);
            final ProcessCluster source = trial.source();
            final int leader = leaderOfSomePartition(trial, source);
            source.stopCleanly(leader);
            trial.note("source broker %d stopped cleanly (SIGTERM, controlled shutdown)", leader);
            trial.awaitLeadersAwayFrom(source, leader);
            trial.awaitAcksOnEveryPartitionAfter(trial.ackedOffsets(), "the source leader change");
            source.launch(leader);
            source.awaitUp();
            trial.awaitFullIsr(source);
            trial.awaitAcksOnEveryPartitionAfter(trial.ackedOffsets(), "the restart of source broker " + leader);
            trial.awaitAcked(killPoint(trial), MIRROR, 0);
            trial.assertNothingLost(trial.killSourceAndCheck(0, MIRROR));
        }
    }

    @ParameterizedTest(name = "zero-RPO (d) two SYNC destinations, one released mid-run, then (a) on the other: "
        + "seed {0}")
    @MethodSource("seeds")
    @Timeout(300)
    void shouldLoseNothingOnTheDestinationThatStaysRegistered(final long seed) throws Exception
    {
        try (ZeroRpoTrial trial = new ZeroRpoTrial(dir, seed, 2, INJECTED_DELAY_MS))
        {
            trial.createTopic();
            trial.mirror(0, "dr-a", MirrorType.SYNC);
            trial.mirror(1, "dr-b", MirrorType.SYNC);
            trial.startLoad();
            trial.awaitAcked(faultPoint(trial), "dr-b", 1);
            MirrorCli.releaseSync(trial.source(), "dr-a", ZeroRpoTrial.TOPIC);
            trial.note("dr-a released from the source (--release-sync)");
            trial.awaitAcksOnEveryPartitionAfter(trial.ackedOffsets(), "the release of dr-a");
            trial.awaitAcked(killPoint(trial), "dr-b", 1);
            trial.assertNothingLost(trial.killSourceAndCheck(1, "dr-b"));
        }
    }

    @ParameterizedTest(name = "zero-RPO (e) SIGSTOP of a destination broker past replica.lag.time.max.ms, SIGCONT, "
        + "then (a): seed {0}")
    @MethodSource("seeds")
    @Timeout(300)
    void shouldLoseNothingAcrossADestinationPause(final long seed) throws Exception
    {
        try (ZeroRpoTrial trial = new ZeroRpoTrial(dir, seed, 1, INJECTED_DELAY_MS))
        {
            startSyncLoad(trial);
            final ProcessCluster destination = trial.destination(0);
            final int paused = trial.brokerOtherThanActiveController(destination);
            final long pausedAtMs = System.currentTimeMillis();
            destination.pause(paused);
            trial.note("destination broker %d paused (SIGSTOP)", paused);
            trial.awaitOutOfIsr(destination, paused);
            trial.awaitAcksOnEveryPartitionAfter(trial.ackedOffsets(), "the pause, with the paused broker out of "
                + "the ISR");
            // The broker may leave the ISR before replica.lag.time.max.ms (its fencing, after the session
            // timeout, removes it too): the pause is held past it all the same, as the scenario says.
            final long releaseAtMs = pausedAtMs + ZeroRpoTrial.REPLICA_LAG_TIME_MAX_MS + 500;
            Thread.sleep(Math.max(0, releaseAtMs - System.currentTimeMillis()));
            final long heldMs = System.currentTimeMillis() - pausedAtMs;
            destination.resume(paused);
            trial.note("destination broker %d resumed (SIGCONT) after %d ms", paused, heldMs);
            trial.awaitFullIsr(destination);
            trial.awaitAcksOnEveryPartitionAfter(trial.ackedOffsets(), "the resume of destination broker " + paused);
            killSourceAndCheck(trial);
        }
    }

    @ParameterizedTest(name = "zero-RPO (f) SIGKILL of the source's active controller while a Register and a "
        + "release are in flight, then (a) on the destination that registered: seed {0}")
    @MethodSource("seeds")
    @Timeout(300)
    void shouldLoseNothingAcrossASourceControllerCrashUnderRegistration(final long seed) throws Exception
    {
        try (ZeroRpoTrial trial = new ZeroRpoTrial(dir, seed, 2, INJECTED_DELAY_MS))
        {
            trial.createTopic();
            trial.mirror(0, "dr-a", MirrorType.SYNC);
            trial.startLoad();
            trial.awaitAcked(faultPoint(trial), "dr-a", 0);
            final ProcessCluster source = trial.source();
            final ProcessCluster destinationB = trial.destination(1);
            final int controller = trial.activeController(source);
            MirrorCli.create(destinationB, "dr-b", source);
            // dr-b's promotion registers at the source's controller and dr-a's release is decided there; its node
            // dies under both, at a seeded point after the two commands start (each is a JVM of its own).
            final ExecutorService operators = Executors.newFixedThreadPool(2);
            try
            {
                final Future<?> add = operators.submit(() ->
                {
                    MirrorCli.add(destinationB, "dr-b", ZeroRpoTrial.TOPIC, true, source);
                    return null;
                });
                final Future<MirrorCli.Result> release = operators.submit(() -> MirrorCli.run("--bootstrap-server",
                    source.bootstrapServers(), "--release-sync", "--mirror", "dr-a", "--topics", ZeroRpoTrial.TOPIC));
                Thread.sleep(500 + trial.random().nextInt(1_000));
                source.kill(controller);
                trial.note("source broker %d, the active controller's node, SIGKILLed under dr-b's --add --sync and "
                    + "dr-a's --release-sync", controller);
                add.get(120, TimeUnit.SECONDS);
                final MirrorCli.Result released = release.get(120, TimeUnit.SECONDS);
                trial.note("dr-a's --release-sync under the crash: exit %d %s", released.exitStatus(),
                    released.stderr().strip());
                if (released.exitStatus() != 0)
                {
                    // As an operator would: a release the crash interrupted is run again until it is answered.
                    TrialMirrors.awaitOrFail(() -> releaseOnce(source), 60_000, () -> "--release-sync of dr-a never "
                        + "succeeded after the source's controller crashed");
                    trial.note("dr-a's --release-sync run again: answered");
                }
            }
            finally
            {
                operators.shutdownNow();
            }
            source.launch(controller);
            source.awaitUp();
            trial.awaitFullIsr(source);
            TrialMirrors.awaitEffective(destinationB.port(1), "dr-b", ZeroRpoTrial.TOPIC, MirrorType.SYNC, 60_000);
            trial.note("dr-b effective SYNC; source broker %d back in every ISR", controller);
            // The ledger in __mirror_state holds what was decided across the crash: dr-b's registration, and one
            // entry for dr-a (its Released marker, or the registration of the recovery promotion its destination
            // may have made since, as the spec lets it).
            final Uuid topicId;
            try (Admin admin = Clients.admin(source.bootstrapServers()))
            {
                topicId = Clients.describe(admin, ZeroRpoTrial.TOPIC).topicId();
            }
            assertEquals(List.of(new SyncRegistrationLedger.Entry(ZeroRpoTrial.TOPIC, topicId, false)),
                TrialMirrors.syncLedger(source.bootstrapServers(), "dr-b"), "dr-b's ledger entry after the crash");
            final List<SyncRegistrationLedger.Entry> drA = TrialMirrors.syncLedger(source.bootstrapServers(), "dr-a");
            assertEquals(List.of(topicId), drA.stream().map(SyncRegistrationLedger.Entry::topicId).toList(),
                () -> "dr-a's ledger entry after the crash: " + drA);
            trial.awaitAcksOnEveryPartitionAfter(trial.ackedOffsets(), "the source controller's crash");
            // dr-a's release may be decided before dr-b's registration commits: in between no sync mirror gates
            // the source, as the spec allows, and acknowledgements are not bound by the link. From here dr-b does.
            trial.gatedFromNow();
            trial.awaitAcked(killPoint(trial), "dr-b", 1);
            trial.assertNothingLost(trial.killSourceAndCheck(1, "dr-b"));
        }
    }

    private static boolean releaseOnce(final ProcessCluster source)
    {
        try
        {
            return MirrorCli.run("--bootstrap-server", source.bootstrapServers(), "--release-sync", "--mirror", "dr-a",
                "--topics", ZeroRpoTrial.TOPIC).exitStatus() == 0;
        }
        catch (final Exception e)
        {
            return false;
        }
    }

    @ParameterizedTest(name = "zero-RPO negative control: (a) in ASYNC mode, link delay only, finds loss: seed {0}")
    @MethodSource("seeds")
    @Timeout(300)
    void shouldFindLossInAsyncMode(final long seed) throws Exception
    {
        try (ZeroRpoTrial trial = new ZeroRpoTrial(dir, seed, 1, CONTROL_DELAY_MS))
        {
            trial.createTopic();
            trial.mirror(0, MIRROR, MirrorType.ASYNC);
            trial.startLoad();
            trial.awaitAcked(killPoint(trial), MIRROR, 0);
            final AckLedger.Verdict verdict = trial.killSourceAndCheck(0, MIRROR);
            final String context = String.join("\n", trial.log());
            assertTrue(verdict.acked() >= ZeroRpoTrial.MIN_ACKED, () -> "too few acknowledged: " + verdict);
            assertTrue(verdict.duplicateAcks() == 0, () -> "offsets acknowledged twice: " + verdict);
            assertTrue(verdict.lost() > 0, () -> "the ASYNC control lost nothing, so the check cannot tell loss "
                + "from none: " + verdict + "\n" + context);
        }
    }

    /** The topic mirrored in SYNC, the load on, and the first part of it acknowledged: where a fault comes. */
    private static void startSyncLoad(final ZeroRpoTrial trial) throws Exception
    {
        trial.createTopic();
        trial.mirror(0, MIRROR, MirrorType.SYNC);
        trial.startLoad();
        trial.awaitAcked(faultPoint(trial), MIRROR, 0);
    }

    /** (a): the rest of the load, every source broker SIGKILLed, failover, and nothing acknowledged lost. */
    private static void killSourceAndCheck(final ZeroRpoTrial trial) throws Exception
    {
        trial.awaitAcked(killPoint(trial), MIRROR, 0);
        trial.assertNothingLost(trial.killSourceAndCheck(0, MIRROR));
    }

    /**
     * A broker of {@code cluster} that leads a partition of the topic, chosen by the seed among those that do not
     * run the cluster's active controller: a fault on that node is scenario (f)'s.
     */
    private static int leaderOfSomePartition(final ZeroRpoTrial trial, final ProcessCluster cluster) throws Exception
    {
        final int activeController = trial.activeController(cluster);
        final List<Integer> candidates = new ArrayList<>();
        for (int p = 0; p < trial.partitions(); p++)
        {
            final int leader = trial.leader(cluster, p);
            if (leader >= 0 && leader != activeController && !candidates.contains(leader))
            {
                candidates.add(leader);
            }
        }
        assertTrue(!candidates.isEmpty(), () -> cluster.name() + ": every partition is led by node " +
            activeController + ", the active controller's");
        candidates.sort(null);
        return candidates.get(trial.random().nextInt(candidates.size()));
    }
}

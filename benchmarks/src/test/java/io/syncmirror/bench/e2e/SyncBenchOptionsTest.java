package io.syncmirror.bench.e2e;

import java.nio.file.Paths;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.protocol.MirrorType;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(10)
class SyncBenchOptionsTest
{
    private static final LocalDateTime NOW = LocalDateTime.of(2026, 11, 30, 10, 5, 7);

    private static SyncBenchOptions parse(final String... args)
    {
        return SyncBenchOptions.parse(args, NOW);
    }

    private static String error(final String... args)
    {
        return assertThrows(IllegalArgumentException.class, () -> parse(args)).getMessage();
    }

    @Test
    void shouldDefaultToALaptopSizedRunOfBothModes()
    {
        final SyncBenchOptions options = parse();
        assertEquals(100, options.partitions());
        assertEquals(1, options.topics());
        assertEquals(3, options.brokers());
        assertEquals(3, options.replicationFactor());
        assertEquals(2, options.minInsyncReplicas());
        assertEquals(1, options.destinations());
        assertEquals(SyncBenchOptions.DEFAULT_RATE_PER_SECOND, options.ratePerSecond());
        assertEquals(200, options.ratePerSecond());
        assertEquals(0.0, options.injectedDelayMs());
        assertFalse(options.quiet());
        assertFalse(options.serve());
        assertEquals(List.of(MirrorType.ASYNC, MirrorType.SYNC), options.modes());
        assertEquals(30, options.syncTimeoutSeconds());
        assertEquals(SyncBenchOptions.STORAGE_MEMORY, options.storage());
        assertEquals(Paths.get("results", "sync-bench-20261130-100507"), options.resultsDir());
        assertEquals("4g", options.heap());
        assertEquals(0, options.idleSeconds(), "no idle window unless asked for");
        // Setup is a few seconds; both modes' load plus the SYNC timeout must stay within two minutes.
        final int loadSeconds = 2 * (options.warmupSeconds() + options.durationSeconds());
        assertTrue(loadSeconds + options.syncTimeoutSeconds() <= 90, "defaults leave under 30 s for setup");
    }

    @Test
    void shouldReadEveryFlag()
    {
        final SyncBenchOptions options = parse("--partitions", "100000", "--partitions-per-topic", "100",
            "--brokers", "3", "--replication-factor", "2", "--min-insync-replicas", "2", "--destinations", "2",
            "--rate", "5000", "--producers", "2", "--size", "64", "--warmup-s", "10", "--duration-s", "60", "--idle-s", "30",
            "--delay-ms", "2.5", "--modes", "sync", "--sync-timeout-s", "300", "--setup-timeout-s", "900",
            "--storage", "durable", "--results-dir", "out/x", "--heap", "12g", "--mirror-state-rf", "3", "--quiet",
            "--serve");
        assertEquals(100_000, options.partitions());
        assertEquals(1000, options.topics());
        assertEquals(2, options.replicationFactor());
        assertEquals(2, options.minInsyncReplicas());
        assertEquals(2, options.destinations());
        assertEquals(5000, options.ratePerSecond());
        assertEquals(2, options.producers());
        assertEquals(64, options.messageBytes());
        assertEquals(10, options.warmupSeconds());
        assertEquals(60, options.durationSeconds());
        assertEquals(30, options.idleSeconds());
        assertEquals(2.5, options.injectedDelayMs());
        assertEquals(List.of(MirrorType.SYNC), options.modes());
        assertEquals(300, options.syncTimeoutSeconds());
        assertEquals(900, options.setupTimeoutSeconds());
        assertEquals(SyncBenchOptions.STORAGE_DURABLE, options.storage());
        assertEquals(Paths.get("out/x"), options.resultsDir());
        assertEquals("12g", options.heap());
        assertEquals(3, options.mirrorStateReplicationFactor());
        assertTrue(options.quiet());
        assertTrue(options.serve());
    }

    @Test
    void shouldGiveTheLastTopicTheRemainingPartitions()
    {
        final SyncBenchOptions options = parse("--partitions", "250", "--partitions-per-topic", "100");
        assertEquals(3, options.topics());
        assertEquals(100, options.partitionsOfTopic(0));
        assertEquals(100, options.partitionsOfTopic(1));
        assertEquals(50, options.partitionsOfTopic(2));
        assertEquals(1, parse("--partitions", "7").topics());
        assertEquals(7, parse("--partitions", "7").partitionsOfTopic(0));
    }

    @Test
    void shouldLoadEveryPartitionUnlessToldToLoadTheFirstOnes()
    {
        final SyncBenchOptions all = parse("--partitions", "250", "--partitions-per-topic", "100");
        assertEquals(250, all.loadedPartitions());
        assertEquals(3, all.loadedTopics());
        final SyncBenchOptions some = parse("--partitions", "100000", "--loaded-partitions", "1000");
        assertEquals(1000, some.loadedPartitions());
        assertEquals(10, some.loadedTopics());
        assertEquals(2, parse("--partitions", "250", "--loaded-partitions", "101").loadedTopics());
        assertEquals("--loaded-partitions 300 is more than --partitions 250",
            error("--partitions", "250", "--loaded-partitions", "300"));
    }

    @Test
    void shouldTakeBrokerSettingsAsKeyValuePairs()
    {
        assertEquals(Map.of(), parse().brokerConfigs());
        assertEquals(Map.of("replica.lag.time.max.ms", "60000", "mirror.coordinator.tick.ms", "a=b"),
            parse("--broker-config", "replica.lag.time.max.ms=60000", "--broker-config",
                "mirror.coordinator.tick.ms=a=b").brokerConfigs());
        assertEquals("--broker-config takes key=value: 'novalue'", error("--broker-config", "novalue"));
        assertEquals("--broker-config takes key=value: '=1'", error("--broker-config", "=1"));
        assertEquals("--broker-config names a twice", error("--broker-config", "a=1", "--broker-config", "a=2"));
        assertEquals("--broker-config needs a value", error("--broker-config"));
    }

    @Test
    void shouldScaleTheSyncTimeoutWithPartitionsUnlessGiven()
    {
        assertEquals(130, parse("--partitions", "100000").syncTimeoutSeconds());
        assertEquals(5, parse("--partitions", "100000", "--sync-timeout-s", "5").syncTimeoutSeconds());
    }

    @Test
    void shouldFollowTheBrokerCountForReplicationDefaults()
    {
        final SyncBenchOptions one = parse("--brokers", "1");
        assertEquals(1, one.replicationFactor());
        assertEquals(1, one.minInsyncReplicas());
    }

    @Test
    void shouldRefuseBadValuesWithOneLineNamingTheFlag()
    {
        assertEquals("--rate needs a whole number: 'fast'", error("--rate", "fast"));
        assertEquals("--rate must be 1..200000: 0", error("--rate", "0"));
        assertEquals("--partitions needs a value", error("--partitions"));
        assertEquals("--partitions needs a value", error("--partitions", "--rate", "1"));
        assertEquals("--delay-ms needs a number: 'soon'", error("--delay-ms", "soon"));
        assertTrue(error("--delay-ms", "-1").startsWith("--delay-ms must be"));
        assertTrue(error("--delay-ms", "NaN").startsWith("--delay-ms must be"));
        assertEquals("--replication-factor 3 is more than --brokers 1", error("--brokers", "1",
            "--replication-factor", "3"));
        assertEquals("--min-insync-replicas 3 is more than the replication factor 2", error("--replication-factor",
            "2", "--min-insync-replicas", "3"));
        assertEquals("--modes takes ASYNC and/or SYNC: 'FAST'", error("--modes", "ASYNC,FAST"));
        assertEquals("--modes names SYNC twice", error("--modes", "SYNC,SYNC"));
        assertEquals("--modes runs ASYNC before SYNC: write ASYNC,SYNC", error("--modes", "SYNC,ASYNC"));
        assertEquals("--storage takes memory or durable: 'disk'", error("--storage", "disk"));
        assertEquals("--heap takes a size like 4g or 512m: '12'", error("--heap", "12"));
        assertEquals("--heap takes a size like 4g or 512m: '0g'", error("--heap", "0g"));
        assertEquals("unknown flag: --partition", error("--partition", "5"));
        assertEquals("--idle-s must be 0..3600: -1", error("--idle-s", "-1"));
        assertEquals("--mirror-state-rf 2 is more than --brokers 1", error("--brokers", "1", "--mirror-state-rf", "2"));
        for (final String message : List.of(error("--rate", "x"), error("--modes", ""), error("--heap", "1t")))
        {
            assertFalse(message.contains("\n"), message);
        }
    }

    @Test
    void shouldRecogniseHelp()
    {
        assertTrue(SyncBenchOptions.wantsHelp(new String[]{ "--rate", "5", "--help" }));
        assertTrue(SyncBenchOptions.wantsHelp(new String[]{ "-h" }));
        assertFalse(SyncBenchOptions.wantsHelp(new String[]{ "--rate", "5" }));
        for (final String flag : List.of("--partitions", "--brokers", "--replication-factor", "--destinations",
            "--rate", "--duration-s", "--idle-s", "--delay-ms", "--heap", "--results-dir"))
        {
            assertTrue(SyncBenchOptions.USAGE.contains(flag), flag);
        }
    }
}

package io.syncmirror.tests;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.protocol.MirrorPartitionState;
import io.syncmirror.tools.ClusterMirrorsCommand;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The cluster mirrors command end to end against a real destination cluster mirroring a real source. */
@Timeout(120)
class MirrorCliTest
{
    @AutoClose
    private static MirrorClusters clusters;

    private record Result(int exit, String out, String err)
    {
    }

    @BeforeAll
    static void startClusters()
    {
        clusters = MirrorClusters.start(1, 1, Map.of());
    }

    @Test
    @DisplayName("AM-18 create, add, describe (state, source and destination offsets, lag), list, remove and "
        + "delete through the command; delete is refused while topics are attached")
    void shouldManageMirrorEndToEnd() throws Exception
    {
        final String topic = "cli-topic";
        clusters.createSourceTopic(topic, 2);
        try (KafkaProducer<byte[], byte[]> producer = Clients.producer(clusters.source().bootstrapServers(), Map.of()))
        {
            for (int i = 0; i < 100; i++)
            {
                producer.send(new ProducerRecord<>(topic, i % 2, null, ("v" + i).getBytes(StandardCharsets.UTF_8)));
            }
        }
        final String bootstrap = clusters.destination().bootstrapServers();

        Result result = run("--bootstrap-server", bootstrap, "--create", "--mirror", "cli-m",
            "--source-bootstrap-server", clusters.source().bootstrapServers());
        assertEquals(0, result.exit(), result.toString());

        result = run("--bootstrap-server", bootstrap, "--add", "--mirror", "cli-m", "--topics", topic);
        assertEquals(0, result.exit(), result.toString());
        assertTrue(result.out().contains("Added topic '" + topic + "' to mirror 'cli-m'"), result.out());

        // Describe: each partition MIRRORING, at the source's offset 50, lag 0.
        final AtomicReference<Result> described = new AtomicReference<>();
        Clients.awaitCondition(() ->
        {
            final Result d = run("--bootstrap-server", bootstrap, "--describe", "--mirror", "cli-m");
            described.set(d);
            return d.exit() == 0 && row(d.out(), topic, 0).equals("cli-m " + topic + " 0 MIRRORING 50 50 0 -") &&
                row(d.out(), topic, 1).equals("cli-m " + topic + " 1 MIRRORING 50 50 0 -");
        }, 30_000, "describe shows both partitions MIRRORING, caught up");
        final String describeOut = described.get().out();
        assertTrue(describeOut.contains("Mirror: cli-m") && describeOut.contains("Source: " +
            clusters.source().bootstrapServers()), describeOut);
        assertTrue(describeOut.contains("MIRROR") && describeOut.contains("STATE") &&
            describeOut.contains("SOURCE-OFFSET") && describeOut.contains("DESTINATION-OFFSET") &&
            describeOut.contains("LAG"), describeOut);

        result = run("--bootstrap-server", bootstrap, "--list");
        assertEquals(0, result.exit(), result.toString());
        assertTrue(result.out().contains("cli-m") && result.out().contains(clusters.source().bootstrapServers()),
            result.out());

        result = run("--bootstrap-server", bootstrap, "--delete", "--mirror", "cli-m");
        assertEquals(ClusterMirrorsCommand.EXIT_FAILED, result.exit(), "delete refused while a topic is attached: "
            + result);
        assertTrue(result.err().contains(topic), result.err());

        result = run("--bootstrap-server", bootstrap, "--remove", "--mirror", "cli-m", "--topics", topic);
        assertEquals(0, result.exit(), result.toString());
        clusters.awaitState("cli-m", topic, 2, MirrorPartitionState.STOPPED, "partitions STOPPED after --remove");
        final Result stopped = run("--bootstrap-server", bootstrap, "--describe", "--mirror", "cli-m");
        assertTrue(row(stopped.out(), topic, 0).startsWith("cli-m " + topic + " 0 STOPPED"), stopped.out());

        // A removed topic (mirror.name = cli-m.removed) no longer blocks deleting the mirror.
        result = run("--bootstrap-server", bootstrap, "--delete", "--mirror", "cli-m");
        assertEquals(0, result.exit(), result.toString());
        // The delete is answered once the controller committed it; the broker answering --list applies it from the
        // metadata log a moment later (as a topic deleted in Kafka may still be listed for a moment).
        Clients.awaitCondition(() ->
        {
            final Result listed = run("--bootstrap-server", bootstrap, "--list");
            return listed.exit() == 0 && !listed.out().contains("cli-m");
        }, 10_000, "the deleted mirror is still listed");
        result = run("--bootstrap-server", bootstrap, "--describe", "--mirror", "cli-m");
        assertEquals(ClusterMirrorsCommand.EXIT_FAILED, result.exit(), result.toString());

        // The failed-over topic stays writable.
        try (KafkaProducer<byte[], byte[]> producer = Clients.producer(bootstrap, Map.of()))
        {
            assertEquals(50L, producer.send(new ProducerRecord<>(topic, 0, null,
                "after".getBytes(StandardCharsets.UTF_8))).get().offset());
        }
        assertEquals(51L, AsyncMirroringTest.leader(clusters.destination(), new TopicPartition(topic, 0)).log()
            .logEndOffset());
    }

    @Test
    @DisplayName("AM-18 bad arguments exit 2 with one line naming the problem; an unknown mirror exits 1")
    void shouldRejectBadArguments()
    {
        final String bootstrap = clusters.destination().bootstrapServers();
        for (final String[] args : new String[][] {
            {},
            {"--bootstrap-server", bootstrap},
            {"--bootstrap-server", bootstrap, "--frobnicate"},
            {"--bootstrap-server", bootstrap, "--create", "--source-bootstrap-server", "127.0.0.1:1"},
            {"--bootstrap-server", bootstrap, "--create", "--mirror", "x"},
            {"--bootstrap-server", bootstrap, "--add", "--mirror", "x"},
            {"--bootstrap-server", bootstrap, "--list", "--delete", "--mirror", "x"},
            {"--bootstrap-server", bootstrap, "--list", "--topics", "a"},
            {"--create", "--mirror", "x", "--source-bootstrap-server", "127.0.0.1:1"},
            {"--bootstrap-server", "not-a-host-port", "--list"}})
        {
            final Result result = run(args);
            assertEquals(ClusterMirrorsCommand.EXIT_USAGE, result.exit(), Arrays.toString(args) + ": " + result);
            assertTrue(result.err().startsWith("Error: ") && result.err().contains("see --help"),
                Arrays.toString(args) + ": " + result.err());
            assertEquals(1, result.err().strip().lines().count(), "one line: " + result.err());
        }
        final Result unknown = run("--bootstrap-server", bootstrap, "--add", "--mirror", "no-such-mirror", "--topics",
            "t");
        assertEquals(ClusterMirrorsCommand.EXIT_FAILED, unknown.exit(), unknown.toString());
        assertTrue(unknown.err().contains("no-such-mirror"), unknown.err());
    }

    /** The describe table's row of a partition, its columns joined by single spaces; empty when absent. */
    private static String row(final String out, final String topic, final int partition)
    {
        return out.lines().map(line -> String.join(" ", line.trim().split("\\s+")))
            .filter(line -> line.contains(" " + topic + " " + partition + " ")).findFirst().orElse("");
    }

    private static Result run(final String... args)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int exit;
        try (PrintStream outStream = new PrintStream(out, true, StandardCharsets.UTF_8);
             PrintStream errStream = new PrintStream(err, true, StandardCharsets.UTF_8))
        {
            exit = ClusterMirrorsCommand.run(args, outStream, errStream);
        }
        return new Result(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
}

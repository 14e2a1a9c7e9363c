package io.syncmirror.tests;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.Records;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.broker.cluster.EmbeddedCluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * kcat (librdkafka, a client that shares no code with kafka-clients) against a 3-broker reference cluster: metadata,
 * produce with lz4 and zstd, and consume to the end from the beginning, from the end and from 10 before the end; the
 * records read back are the ones produced. Every kcat run has a deadline and is killed past it.
 *
 * <p>kcat must be installed ({@code .ci/run} installs Debian's). Locally the test is skipped without it; under CI
 * (the {@code CI} environment variable set) a missing kcat fails it. Group consumption ({@code kcat -G}) runs
 * against the broker's group coordinator (Kafka's own).
 */
@Timeout(180)
class KcatTest
{
    private static final long RUN_TIMEOUT_S = 60;
    private static final int RECORDS = 50;

    private static String kcat;
    private static EmbeddedCluster cluster;

    @BeforeAll
    static void start() throws Exception
    {
        kcat = findOnPath("kcat");
        if (kcat == null)
        {
            if (System.getenv("CI") != null)
            {
                throw new AssertionError("kcat is not installed, and CI is set: .ci/run installs it");
            }
            Assumptions.abort("kcat is not installed (apt-get install kcat); skipped outside CI");
        }
        cluster = EmbeddedCluster.start(3, Map.of("min.insync.replicas", "2"));
        try (Admin admin = Clients.admin(cluster.bootstrapServers()))
        {
            admin.createTopics(List.of(new NewTopic("kcat-lz4", 1, (short)3), new NewTopic("kcat-zstd", 1, (short)3),
                new NewTopic("kcat-tail", 1, (short)3), new NewTopic("kcat-group", 1, (short)3)))
                .all().get(30, TimeUnit.SECONDS);
        }
    }

    @AfterAll
    static void stop()
    {
        if (cluster != null)
        {
            cluster.close();
        }
    }

    @Test
    @DisplayName("kcat -L lists the 3 brokers and a topic's partition with its leader, replicas and ISR")
    void shouldListMetadata() throws Exception
    {
        final Run run = run(List.of("-L", "-t", "kcat-lz4"), null);
        assertTrue(run.stdout().contains("3 brokers:"), run.toString());
        assertTrue(run.stdout().contains("topic \"kcat-lz4\" with 1 partitions:"), run.toString());
        assertTrue(run.stdout().matches("(?s).*partition 0, leader \\d, replicas: \\d,\\d,\\d, isrs: \\d,\\d,\\d.*"),
            run.toString());
    }

    @Test
    @DisplayName("kcat produces lz4 and zstd batches, stored compressed, and reads them back to the end from every start")
    void shouldProduceCompressedAndConsumeFromEveryLogicalOffset() throws Exception
    {
        for (final String codec : List.of("lz4", "zstd"))
        {
            final String topic = "kcat-" + codec;
            final List<String> produced = lines(codec, 0, RECORDS);
            // A linger so that the lines go out in few, multi-record batches, which librdkafka compresses.
            final Run produce = run(List.of("-P", "-t", topic, "-p", "0", "-z", codec, "-X", "linger.ms=50"),
                joined(produced));
            assertEquals("", produce.stdout(), produce.toString());
            assertEquals(CompressionType.forName(codec), storedCompression(topic), codec + " batches stored as");

            // -C -e with no -o: kcat's default start, the beginning.
            assertEquals(produced, consume(topic, List.of()), codec + ", default start");
            assertEquals(produced, consume(topic, List.of("-o", "beginning")), codec + ", -o beginning");
            assertEquals(produced.subList(RECORDS - 10, RECORDS), consume(topic, List.of("-o", "-10")),
                codec + ", -o -10");
            assertEquals(List.of(), consume(topic, List.of("-o", "end")), codec + ", -o end");
        }
    }

    @Test
    @DisplayName("kcat -o end starts at the log end and reads what is produced after it")
    void shouldTailFromTheEnd() throws Exception
    {
        final String topic = "kcat-tail";
        assertEquals("", run(List.of("-P", "-t", topic, "-p", "0"), joined(lines("old", 0, 5))).stdout());
        final List<String> command = command(List.of("-C", "-t", topic, "-p", "0", "-o", "end", "-c", "3", "-u",
            "-f", "%s\\n"));
        final Process consumer = new ProcessBuilder(command).start();
        try
        {
            final CountDownLatch atEnd = new CountDownLatch(1);
            final StringBuilder stderr = new StringBuilder();
            final CompletableFuture<Void> errors = CompletableFuture.runAsync(() ->
                readLines(consumer.getErrorStream(), line ->
                {
                    stderr.append(line).append('\n');
                    if (line.contains("Reached end of topic " + topic))
                    {
                        atEnd.countDown();
                    }
                }));
            final CompletableFuture<String> stdout = CompletableFuture.supplyAsync(() -> readAll(consumer));
            assertTrue(atEnd.await(RUN_TIMEOUT_S, TimeUnit.SECONDS), "kcat never reached the end: " + stderr);
            final List<String> fresh = lines("new", 0, 3);
            assertEquals("", run(List.of("-P", "-t", topic, "-p", "0"), joined(fresh)).stdout());
            assertTrue(consumer.waitFor(RUN_TIMEOUT_S, TimeUnit.SECONDS), "kcat -c 3 did not exit: " + stderr);
            assertEquals(0, consumer.exitValue(), stderr.toString());
            assertEquals(fresh, List.of(stdout.get(RUN_TIMEOUT_S, TimeUnit.SECONDS).split("\n")));
            errors.get(RUN_TIMEOUT_S, TimeUnit.SECONDS);
        }
        finally
        {
            consumer.destroyForcibly();
        }
    }

    @Test
    @DisplayName("kcat -G consumes as a group member (librdkafka's classic protocol), commits, and a second run of "
        + "the group resumes after the records the first one read")
    void shouldConsumeAsAGroupAndResumeFromCommittedOffsets() throws Exception
    {
        final String topic = "kcat-group";
        final List<String> first = lines("first", 0, 20);
        assertEquals("", run(List.of("-P", "-t", topic, "-p", "0"), joined(first)).stdout());
        assertEquals(first, groupConsume(topic, first.size()), "the first member's records");
        final List<String> second = lines("second", 0, 10);
        assertEquals("", run(List.of("-P", "-t", topic, "-p", "0"), joined(second)).stdout());
        assertEquals(second, groupConsume(topic, second.size()), "the next member resumes after the commit");
    }

    /** Reads {@code count} records as a member of group {@code kcat-readers}, committing them when it leaves. */
    private static List<String> groupConsume(final String topic, final int count) throws Exception
    {
        final String out = run(List.of("-G", "kcat-readers", "-X", "auto.offset.reset=earliest",
            "-X", "enable.auto.commit=true", "-c", Integer.toString(count), "-q", "-f", "%s\\n", topic), null)
            .stdout();
        return out.isEmpty() ? List.of() : List.of(out.split("\n"));
    }

    private static List<String> consume(final String topic, final List<String> offset) throws Exception
    {
        final List<String> args = new ArrayList<>(List.of("-C", "-t", topic, "-p", "0", "-e", "-q", "-f", "%s\\n"));
        args.addAll(offset);
        final String out = run(args, null).stdout();
        return out.isEmpty() ? List.of() : List.of(out.split("\n"));
    }

    /** The compression of the first batch in partition 0 of {@code topic}, read by a raw Fetch from its leader. */
    private static CompressionType storedCompression(final String topic) throws Exception
    {
        final TopicDescription description;
        try (Admin admin = Clients.admin(cluster.bootstrapServers()))
        {
            description = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
        }
        final int leader = description.partitions().get(0).leader().id();
        final MinimalRequests.Fixture fixture = new MinimalRequests.Fixture(topic, description.topicId(), RECORDS,
            leader);
        try (WireClient client = new WireClient(cluster.port(leader), 15_000))
        {
            final short version = ApiKeys.FETCH.latestVersion();
            final FetchResponseData data = (FetchResponseData)client.roundTrip(ApiKeys.FETCH, version,
                MinimalRequests.fetch(version, fixture, -1, IsolationLevel.READ_UNCOMMITTED, -1)).data();
            final Records records = (Records)data.responses().get(0).partitions().get(0).records();
            // librdkafka sends a batch uncompressed when compressing would not make it smaller (a first batch of
            // one short line, under load): the codec is the one any of the stored batches carries.
            CompressionType stored = CompressionType.NONE;
            for (final RecordBatch batch : records.batches())
            {
                if (batch.compressionType() != CompressionType.NONE)
                {
                    stored = batch.compressionType();
                }
            }
            return stored;
        }
    }

    private static List<String> lines(final String prefix, final int from, final int count)
    {
        final List<String> lines = new ArrayList<>(count);
        for (int i = from; i < from + count; i++)
        {
            lines.add(prefix + "-record-" + i);
        }
        return lines;
    }

    private static String joined(final List<String> lines)
    {
        return String.join("\n", lines) + "\n";
    }

    /** One finished kcat run. */
    private record Run(List<String> command, int exitCode, String stdout, String stderr)
    {
        @Override
        public String toString()
        {
            return String.join(" ", command) + " exited " + exitCode + "\nstdout:\n" + stdout + "\nstderr:\n" + stderr;
        }
    }

    /** Runs kcat with {@code args} against the cluster, {@code stdin} (or nothing) as input; fails unless it exits 0. */
    private static Run run(final List<String> args, final String stdin) throws Exception
    {
        final List<String> command = command(args);
        final Path stderrFile = Files.createTempFile("kcat-stderr", ".txt");
        try
        {
            final Process process = new ProcessBuilder(command).redirectError(stderrFile.toFile()).start();
            try
            {
                try (OutputStream in = process.getOutputStream())
                {
                    if (stdin != null)
                    {
                        in.write(stdin.getBytes(StandardCharsets.UTF_8));
                    }
                }
                final CompletableFuture<String> stdout = CompletableFuture.supplyAsync(() -> readAll(process));
                final boolean exited = process.waitFor(RUN_TIMEOUT_S, TimeUnit.SECONDS);
                final String err = Files.readString(stderrFile);
                assertTrue(exited, String.join(" ", command) + " did not exit in " + RUN_TIMEOUT_S + " s:\n" + err);
                final Run run = new Run(command, process.exitValue(), stdout.get(RUN_TIMEOUT_S, TimeUnit.SECONDS),
                    err);
                assertEquals(0, run.exitCode(), run.toString());
                return run;
            }
            finally
            {
                process.destroyForcibly();
            }
        }
        finally
        {
            Files.deleteIfExists(stderrFile);
        }
    }

    private static List<String> command(final List<String> args)
    {
        final List<String> command = new ArrayList<>(List.of(kcat, "-b", cluster.bootstrapServers(),
            "-X", "broker.address.family=v4", "-X", "socket.timeout.ms=10000"));
        command.addAll(args);
        return command;
    }

    private static String readAll(final Process process)
    {
        try
        {
            return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
        catch (final IOException e)
        {
            throw new IllegalStateException(e);
        }
    }

    private static void readLines(final java.io.InputStream stream, final java.util.function.Consumer<String> sink)
    {
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8)))
        {
            String line;
            while ((line = reader.readLine()) != null)
            {
                sink.accept(line);
            }
        }
        catch (final IOException e)
        {
            throw new IllegalStateException(e);
        }
    }

    private static String findOnPath(final String name)
    {
        final String path = System.getenv("PATH");
        if (path == null)
        {
            return null;
        }
        for (final String dir : path.split(File.pathSeparator))
        {
            final File candidate = new File(dir, name);
            if (candidate.isFile() && candidate.canExecute())
            {
                return candidate.getAbsolutePath();
            }
        }
        return null;
    }
}

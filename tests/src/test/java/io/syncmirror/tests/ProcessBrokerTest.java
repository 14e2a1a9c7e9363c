package io.syncmirror.tests;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The broker as its own JVM process ({@code io.syncmirror.broker.server.SyncMirrorServer <server.properties>}),
 * started with this JVM's classpath and the project's JVM flags: a real client round trip, a SIGKILL and a restart
 * on the same log directory that keeps every acknowledged record, a SIGTERM that stops it cleanly, and bad
 * properties files refused at start with the key named.
 */
@Timeout(180)
class ProcessBrokerTest
{
    private static final String TOPIC = "process";
    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);
    /** Upper bound for a JVM to start, read a bad file and exit; generous for a loaded machine. */
    private static final long BAD_CONFIG_EXIT_MS = 15_000;

    @TempDir
    Path dir;

    private BrokerProcesses brokers;

    @BeforeEach
    void setUp()
    {
        brokers = new BrokerProcesses(dir);
    }

    @AfterEach
    void killProcesses()
    {
        brokers.close();
    }

    private static int freePort()
    {
        return BrokerProcesses.freePort();
    }

    private static Properties serverProperties(final int port, final Path logDir)
    {
        return BrokerProcesses.serverProperties(port, logDir);
    }

    private Path write(final String name, final Properties props) throws IOException
    {
        return brokers.write(name, props);
    }

    private Process launch(final String name, final Path propertiesFile) throws IOException
    {
        return brokers.launch(name, propertiesFile);
    }

    private String stderr(final String name) throws IOException
    {
        return brokers.stderr(name);
    }

    private void awaitServing(final Process process, final String name, final String bootstrap)
        throws InterruptedException
    {
        brokers.awaitServing(process, name, bootstrap);
    }

    private static void produce(final String bootstrap, final int from, final int to) throws Exception
    {
        try (KafkaProducer<byte[], byte[]> producer = Clients.producer(bootstrap, Map.of()))
        {
            for (int i = from; i < to; i++)
            {
                assertEquals(i, producer.send(new ProducerRecord<>(TOPIC, 0, null, value(i))).get().offset());
            }
        }
    }

    private static void assertServes(final String bootstrap, final int count)
    {
        try (KafkaConsumer<byte[], byte[]> consumer = Clients.consumer(bootstrap, Map.of()))
        {
            final List<ConsumerRecord<byte[], byte[]>> records = Clients.readAll(consumer, List.of(TP), count,
                30_000);
            assertEquals(count, records.size());
            for (int i = 0; i < count; i++)
            {
                assertEquals(i, records.get(i).offset());
                assertArrayEquals(value(i), records.get(i).value());
            }
        }
    }

    private static byte[] value(final int i)
    {
        return ("value-" + i).getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void shouldKeepEveryAcknowledgedRecordAcrossASigkillAndStopCleanlyOnSigterm() throws Exception
    {
        final int port = freePort();
        final String bootstrap = "127.0.0.1:" + port;
        final Path properties = write("server.properties", serverProperties(port, dir.resolve("logs")));

        final Process first = launch("first", properties);
        awaitServing(first, "first", bootstrap);
        try (Admin admin = Clients.admin(bootstrap))
        {
            Clients.createTopic(admin, TOPIC, 1, (short)1, Map.of());
        }
        produce(bootstrap, 0, 200);
        assertServes(bootstrap, 200);

        // SIGKILL: no shutdown hook, no checkpoint, no clean-shutdown marker.
        first.destroyForcibly();
        assertTrue(first.waitFor(30, TimeUnit.SECONDS), "the killed process did not exit");
        assertNotEquals(0, first.exitValue());

        final Process second = launch("second", properties);
        awaitServing(second, "second", bootstrap);
        assertServes(bootstrap, 200);
        produce(bootstrap, 200, 250);
        assertServes(bootstrap, 250);

        // SIGTERM: the shutdown hook stops the broker cleanly and the JVM exits.
        second.destroy();
        assertTrue(second.waitFor(30, TimeUnit.SECONDS), "the process did not stop on SIGTERM");
        assertTrue(stderr("second").contains("broker 1 stopped"), "no clean stop logged: " + stderr("second"));

        final Process third = launch("third", properties);
        awaitServing(third, "third", bootstrap);
        assertServes(bootstrap, 250);
    }

    private void assertRefused(final String name, final Properties props, final String key) throws Exception
    {
        final long startNs = System.nanoTime();
        final Process process = launch(name, write(name + ".properties", props));
        assertTrue(process.waitFor(BAD_CONFIG_EXIT_MS, TimeUnit.MILLISECONDS),
            "the process did not exit on a bad " + key);
        final long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
        final String err = stderr(name);
        assertNotEquals(0, process.exitValue(), "exit code for a bad " + key + "; stderr: " + err);
        assertTrue(err.contains(key), "stderr does not name " + key + ": " + err);
        assertFalse(err.contains("Exception in thread"), "an uncaught exception instead of a message: " + err);
        assertTrue(elapsedMs < BAD_CONFIG_EXIT_MS, "took " + elapsedMs + " ms");
    }

    @Test
    void shouldExitNonZeroNamingTheKeyWhenNodeIdIsMissing() throws Exception
    {
        final Properties props = serverProperties(freePort(), dir.resolve("logs"));
        props.remove("node.id");
        assertRefused("no-node-id", props, "node.id");
    }

    @Test
    void shouldExitNonZeroNamingTheKeyWhenAPortIsNotANumber() throws Exception
    {
        final Properties listener = serverProperties(freePort(), dir.resolve("logs"));
        listener.put("listeners", "PLAINTEXT://127.0.0.1:ninety-ninety-two");
        assertRefused("bad-listener-port", listener, "listeners");

        final Properties controller = serverProperties(freePort(), dir.resolve("logs"));
        controller.put("controller.quorum.voters", "1@127.0.0.1:port");
        assertRefused("bad-controller-port", controller, "controller.quorum.voters");
    }

    @Test
    void shouldExitNonZeroNamingTheFileWhenItCannotBeRead() throws Exception
    {
        final Process process = launch("missing-file", dir.resolve("no-such.properties"));
        assertTrue(process.waitFor(BAD_CONFIG_EXIT_MS, TimeUnit.MILLISECONDS), "the process did not exit");
        assertNotEquals(0, process.exitValue());
        assertTrue(stderr("missing-file").contains("no-such.properties"), stderr("missing-file"));
    }
}

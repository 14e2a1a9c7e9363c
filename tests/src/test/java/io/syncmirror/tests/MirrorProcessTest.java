package io.syncmirror.tests;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import io.syncmirror.protocol.MirrorPartitionState;
import io.syncmirror.protocol.AddTopicsToMirrorRequestData;
import io.syncmirror.protocol.AddTopicsToMirrorResponseData;
import io.syncmirror.protocol.CreateClusterMirrorRequestData;
import io.syncmirror.protocol.CreateClusterMirrorResponseData;
import io.syncmirror.protocol.DescribeClusterMirrorsRequestData;
import io.syncmirror.protocol.DescribeClusterMirrorsResponseData;
import io.syncmirror.protocol.MirrorWireClient;
import io.syncmirror.protocol.RemoveTopicsFromMirrorRequestData;
import io.syncmirror.protocol.RemoveTopicsFromMirrorResponseData;
import io.syncmirror.protocol.MirrorTopicResult;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Mirroring between two broker processes: failover in the middle of a stream with a transaction open at the
 * source, producers on the new primary, a SIGKILL and restart of it, then failback to the old source.
 */
@Timeout(300)
class MirrorProcessTest
{
    private static final String TOPIC = "stream";
    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);

    @TempDir
    Path dir;

    private BrokerProcesses brokers;

    @BeforeEach
    void setUp()
    {
        brokers = new BrokerProcesses(dir);
    }

    @AfterEach
    void tearDown()
    {
        brokers.close();
    }

    private Properties properties(final int port, final String name)
    {
        final Properties props = BrokerProcesses.serverProperties(port, dir.resolve(name + "-logs"));
        Mirrors.FAST.forEach(props::put);
        props.put("mirror.state.topic.replication.factor", "1");
        return props;
    }

    @Test
    @DisplayName("AM-08 AM-09 AM-10 two broker processes: failover mid-stream with a transaction open, new producers "
        + "on the new primary, SIGKILL and restart, then failback and catch-up")
    void shouldFailOverAndBackBetweenProcesses() throws Exception
    {
        final int sourcePort = BrokerProcesses.freePort();
        final int destinationPort = BrokerProcesses.freePort();
        final String source = "127.0.0.1:" + sourcePort;
        final String destination = "127.0.0.1:" + destinationPort;
        final Path sourceProps = brokers.write("source.properties", properties(sourcePort, "source"));
        final Path destinationProps = brokers.write("destination.properties", properties(destinationPort, "dest"));
        brokers.awaitServing(brokers.launch("source", sourceProps), "source", source);
        Process destinationProcess = brokers.launch("destination", destinationProps);
        brokers.awaitServing(destinationProcess, "destination", destination);

        try (Admin admin = Clients.admin(source))
        {
            Clients.createTopic(admin, TOPIC, 1, (short)1, Map.of());
        }
        send(wire(destinationPort), new CreateClusterMirrorRequestData().setMirrorName("dr")
            .setSourceBootstrapServers(source), CreateClusterMirrorResponseData.class);
        final AddTopicsToMirrorResponseData added = send(wire(destinationPort), new AddTopicsToMirrorRequestData()
            .setTopics(List.of(new AddTopicsToMirrorRequestData.TopicState().setTopicName(TOPIC)
                .setMirrorName("dr"))), AddTopicsToMirrorResponseData.class);
        assertOk(MirrorTopicResult.of(added));

        // A stream of idempotent records, with one transaction left open at the source.
        final AtomicBoolean streaming = new AtomicBoolean(true);
        final AtomicInteger streamed = new AtomicInteger();
        final Thread stream = new Thread(() ->
        {
            try (KafkaProducer<byte[], byte[]> producer = Clients.producer(source, Map.of()))
            {
                while (streaming.get())
                {
                    producer.send(record("s-" + streamed.getAndIncrement())).get();
                    Thread.sleep(2);
                }
            }
            catch (final Exception e)
            {
                throw new IllegalStateException(e);
            }
        });
        stream.start();
        final KafkaProducer<byte[], byte[]> open = Clients.producer(source, Map.of("transactional.id", "open"));
        open.initTransactions();
        open.beginTransaction();
        open.send(record("open-txn")).get();
        Clients.awaitCondition(() -> streamed.get() > 300 && destinationLeo(destinationPort) > 200, 60_000,
            "mirroring mid-stream");

        // Failover while the stream goes on and the transaction is open.
        final RemoveTopicsFromMirrorResponseData removed = send(wire(destinationPort),
            new RemoveTopicsFromMirrorRequestData().setTopics(List.of(new RemoveTopicsFromMirrorRequestData
                .TopicState().setTopicName(TOPIC).setMirrorName("dr"))), RemoveTopicsFromMirrorResponseData.class);
        assertOk(MirrorTopicResult.of(removed));
        Clients.awaitCondition(() -> state(destinationPort) == MirrorPartitionState.STOPPED.id(), 30_000, "STOPPED");
        final long failedOverEnd = endOffset(destination);

        produceOnPrimary(destination, "new-primary", "txn-a");
        assertTrue(readCommitted(destination).containsAll(List.of("new-primary", "txn-a")));
        assertTrue(!readCommitted(destination).contains("open-txn"), "the open transaction is aborted");

        // SIGKILL the new primary and restart it: still writable, nothing lost.
        destinationProcess.destroyForcibly();
        assertTrue(destinationProcess.waitFor(30, TimeUnit.SECONDS));
        destinationProcess = brokers.launch("destination-restarted", destinationProps);
        brokers.awaitServing(destinationProcess, "destination-restarted", destination);
        produceOnPrimary(destination, "after-restart", "txn-b");
        final List<String> committed = readCommitted(destination);
        assertTrue(committed.containsAll(List.of("new-primary", "txn-a", "after-restart", "txn-b")), committed.toString());
        assertTrue(endOffset(destination) > failedOverEnd);

        // Failback: the old source mirrors the topic back and ends with the new primary's log.
        streaming.set(false);
        stream.join(30_000);
        open.close(java.time.Duration.ofSeconds(1));
        send(wire(sourcePort), new CreateClusterMirrorRequestData().setMirrorName("back")
            .setSourceBootstrapServers(destination), CreateClusterMirrorResponseData.class);
        assertOk(MirrorTopicResult.of(send(wire(sourcePort), new AddTopicsToMirrorRequestData().setTopics(List.of(
            new AddTopicsToMirrorRequestData.TopicState().setTopicName(TOPIC).setMirrorName("back"))),
            AddTopicsToMirrorResponseData.class)));
        final long target = endOffset(destination);
        Clients.awaitCondition(() -> endOffset(source) == target, 60_000, "failed back and caught up");
        final List<ConsumerRecord<byte[], byte[]>> primary = readAll(destination, (int)target);
        final List<ConsumerRecord<byte[], byte[]>> old = readAll(source, (int)target);
        assertEquals(primary.size(), old.size());
        for (int i = 0; i < primary.size(); i++)
        {
            assertEquals(primary.get(i).offset(), old.get(i).offset());
            assertArrayEquals(primary.get(i).value(), old.get(i).value());
        }
    }

    private static ProducerRecord<byte[], byte[]> record(final String value)
    {
        return new ProducerRecord<>(TOPIC, 0, null, value.getBytes(StandardCharsets.UTF_8));
    }

    private static void produceOnPrimary(final String bootstrap, final String value, final String txnValue)
        throws Exception
    {
        try (KafkaProducer<byte[], byte[]> producer = Clients.producer(bootstrap, Map.of()))
        {
            producer.send(record(value)).get();
        }
        try (KafkaProducer<byte[], byte[]> producer = Clients.producer(bootstrap,
            Map.of("transactional.id", "primary-" + txnValue)))
        {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(record(txnValue)).get();
            producer.commitTransaction();
        }
    }

    private static List<String> readCommitted(final String bootstrap)
    {
        final List<String> values = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = Clients.consumer(bootstrap,
            Map.of("isolation.level", "read_committed")))
        {
            consumer.assign(List.of(TP));
            consumer.seekToBeginning(List.of(TP));
            final long end = consumer.endOffsets(List.of(TP)).get(TP);
            final long deadline = System.currentTimeMillis() + 30_000;
            while (consumer.position(TP) < end && System.currentTimeMillis() < deadline)
            {
                for (final ConsumerRecord<byte[], byte[]> r : consumer.poll(java.time.Duration.ofMillis(200)))
                {
                    values.add(new String(r.value(), StandardCharsets.UTF_8));
                }
            }
        }
        return values;
    }

    private static List<ConsumerRecord<byte[], byte[]>> readAll(final String bootstrap, final int atLeast)
    {
        try (KafkaConsumer<byte[], byte[]> consumer = Clients.consumer(bootstrap, Map.of()))
        {
            consumer.assign(List.of(TP));
            consumer.seekToBeginning(List.of(TP));
            final List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
            final long end = consumer.endOffsets(List.of(TP)).get(TP);
            final long deadline = System.currentTimeMillis() + 30_000;
            while (consumer.position(TP) < end && System.currentTimeMillis() < deadline)
            {
                consumer.poll(java.time.Duration.ofMillis(200)).forEach(records::add);
            }
            assertTrue(end >= atLeast);
            return records;
        }
    }

    private static long endOffset(final String bootstrap)
    {
        try (KafkaConsumer<byte[], byte[]> consumer = Clients.consumer(bootstrap, Map.of()))
        {
            return consumer.endOffsets(List.of(TP)).get(TP);
        }
    }

    private static MirrorWireClient wire(final int port) throws IOException
    {
        return MirrorWireClient.connect("127.0.0.1", port, "mirror-process-test", 10_000, 30_000);
    }

    private static <T extends org.apache.kafka.common.protocol.ApiMessage> T send(final MirrorWireClient client,
        final org.apache.kafka.common.protocol.ApiMessage request, final Class<T> type) throws IOException
    {
        try (client)
        {
            return client.send(request, type);
        }
    }

    private static void assertOk(final List<MirrorTopicResult> results)
    {
        for (final MirrorTopicResult result : results)
        {
            assertEquals(0, result.errorCode(), result.topicName() + ": " + result.errorMessage());
        }
    }

    private static DescribeClusterMirrorsResponseData.MirrorPartition partition(final int port) throws IOException
    {
        final DescribeClusterMirrorsResponseData response = send(wire(port), new DescribeClusterMirrorsRequestData()
            .setMirrorNames(List.of("dr")), DescribeClusterMirrorsResponseData.class);
        return response.mirrors().get(0).topics().get(0).partitions().get(0);
    }

    private static byte state(final int port)
    {
        try
        {
            return partition(port).state();
        }
        catch (final IOException | RuntimeException e)
        {
            return -1;
        }
    }

    private static long destinationLeo(final int port)
    {
        try
        {
            return partition(port).destinationOffset();
        }
        catch (final IOException | RuntimeException e)
        {
            return -1;
        }
    }
}

package io.syncmirror.tests;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.broker.cluster.EmbeddedCluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An unmodified transactional KafkaProducer, read_committed and read_uncommitted consumers, and assign() +
 * commitSync consumers against a 3-broker cluster.
 */
@Timeout(180)
class TransactionsAndOffsetsTest
{
    private static EmbeddedCluster cluster;

    @BeforeAll
    static void start()
    {
        cluster = EmbeddedCluster.start(3, Map.of("min.insync.replicas", "2"));
    }

    @AfterAll
    static void stop()
    {
        if (cluster != null)
        {
            cluster.close();
        }
    }

    private static KafkaProducer<byte[], byte[]> transactional(final String transactionalId)
    {
        return Clients.producer(cluster.bootstrapServers(), Map.of(
            ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId,
            ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 60_000));
    }

    private static ProducerRecord<byte[], byte[]> record(final String topic, final String value)
    {
        return new ProducerRecord<>(topic, 0, null, value.getBytes(StandardCharsets.UTF_8));
    }

    private static List<String> values(final List<ConsumerRecord<byte[], byte[]>> records)
    {
        return records.stream().map(r -> new String(r.value(), StandardCharsets.UTF_8)).toList();
    }

    private static List<ConsumerRecord<byte[], byte[]>> readUpTo(final String topic, final String isolation,
        final int expected)
    {
        try (KafkaConsumer<byte[], byte[]> consumer = Clients.consumer(cluster.bootstrapServers(),
            Map.of(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation)))
        {
            return Clients.readAll(consumer, List.of(new TopicPartition(topic, 0)), expected, 15_000);
        }
    }

    @Test
    void shouldShowCommittedTransactionsOnlyToReadCommittedConsumers() throws Exception
    {
        final String topic = "txn-visibility";
        try (Admin admin = Clients.admin(cluster.bootstrapServers()))
        {
            Clients.createTopic(admin, topic, 1, (short)3, Map.of());
        }
        try (KafkaProducer<byte[], byte[]> producer = transactional("visibility"))
        {
            producer.initTransactions();
            producer.beginTransaction();
            for (int i = 0; i < 10; i++)
            {
                producer.send(record(topic, "committed-" + i));
            }
            producer.commitTransaction();
            producer.beginTransaction();
            for (int i = 0; i < 5; i++)
            {
                producer.send(record(topic, "aborted-" + i));
            }
            producer.flush(); // in the log before the abort: the producer drops batches it has not sent yet
            producer.abortTransaction();
            producer.beginTransaction();
            for (int i = 10; i < 13; i++)
            {
                producer.send(record(topic, "committed-" + i));
            }
            producer.commitTransaction();
        }
        final List<String> committed = values(readUpTo(topic, "read_committed", 13));
        assertEquals(13, committed.size(), "read_committed saw " + committed);
        for (int i = 0; i < 13; i++)
        {
            assertEquals("committed-" + i, committed.get(i));
        }
        final List<String> uncommitted = values(readUpTo(topic, "read_uncommitted", 18));
        assertEquals(18, uncommitted.size(), "read_uncommitted saw " + uncommitted);
        assertTrue(uncommitted.contains("aborted-3"));
    }

    @Test
    void shouldHoldTheLastStableOffsetAtAnOpenTransaction() throws Exception
    {
        final String topic = "txn-lso";
        try (Admin admin = Clients.admin(cluster.bootstrapServers()))
        {
            Clients.createTopic(admin, topic, 1, (short)3, Map.of());
        }
        final TopicPartition tp = new TopicPartition(topic, 0);
        try (KafkaProducer<byte[], byte[]> producer = transactional("lso");
             KafkaConsumer<byte[], byte[]> committedReader = Clients.consumer(cluster.bootstrapServers(),
                 Map.of(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"));
             KafkaConsumer<byte[], byte[]> uncommittedReader = Clients.consumer(cluster.bootstrapServers(),
                 Map.of(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted")))
        {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(record(topic, "open-0"));
            producer.send(record(topic, "open-1"));
            producer.flush();
            Clients.awaitCondition(() -> uncommittedReader.endOffsets(Set.of(tp)).get(tp) == 2, 15_000,
                "the open transaction's records never reached the HW");
            assertEquals(0L, committedReader.endOffsets(Set.of(tp)).get(tp), "LSO passed an open transaction");
            producer.commitTransaction();
            Clients.awaitCondition(() -> committedReader.endOffsets(Set.of(tp)).get(tp) == 3, 15_000,
                "LSO did not move past the COMMIT marker");
        }
    }

    /** A transactional id whose coordinator is not broker 1 (the controller's node, which this test keeps). */
    private static String transactionalIdAwayFromBroker1(final Admin admin) throws Exception
    {
        final var description = Clients.describe(admin, "__transaction_state");
        for (int i = 0; ; i++)
        {
            final String id = "restart-" + i;
            final int partition = Utils.abs(id.hashCode()) % description.partitions().size();
            if (description.partitions().get(partition).leader().id() != 1)
            {
                return id;
            }
        }
    }

    @Test
    void shouldKeepTransactionStateAcrossACoordinatorRestart() throws Exception
    {
        final String topic = "txn-restart";
        try (Admin admin = Clients.admin(cluster.bootstrapServers()))
        {
            Clients.createTopic(admin, topic, 1, (short)3, Map.of());
            // The first transactional producer creates __transaction_state.
            try (KafkaProducer<byte[], byte[]> warmup = transactional("warmup"))
            {
                warmup.initTransactions();
            }
            final String transactionalId = transactionalIdAwayFromBroker1(admin);
            final var description = Clients.describe(admin, "__transaction_state");
            final int coordinator = description.partitions()
                .get(Utils.abs(transactionalId.hashCode()) % description.partitions().size()).leader().id();

            final KafkaProducer<byte[], byte[]> first = transactional(transactionalId);
            first.initTransactions();
            first.beginTransaction();
            first.send(record(topic, "left-open"));
            first.flush();

            cluster.stopBroker(coordinator);
            cluster.startBroker(coordinator).awaitReady(30_000);

            // The new incarnation fences the first and aborts its open transaction: the coordinator remembered it.
            try (KafkaProducer<byte[], byte[]> second = transactional(transactionalId))
            {
                second.initTransactions();
                second.beginTransaction();
                second.send(record(topic, "after-restart"));
                second.commitTransaction();
            }
            assertThrows(ProducerFencedException.class, first::commitTransaction);
            first.close(Duration.ZERO);
        }
        final List<String> committed = values(readUpTo(topic, "read_committed", 1));
        assertEquals(List.of("after-restart"), committed);
    }

    @Test
    void shouldCommitAndFetchConsumerOffsetsWithAssign() throws Exception
    {
        final String topic = "offsets";
        final TopicPartition tp = new TopicPartition(topic, 0);
        try (Admin admin = Clients.admin(cluster.bootstrapServers()))
        {
            Clients.createTopic(admin, topic, 1, (short)3, Map.of());
        }
        try (KafkaProducer<byte[], byte[]> producer = Clients.producer(cluster.bootstrapServers(), Map.of()))
        {
            for (int i = 0; i < 20; i++)
            {
                producer.send(record(topic, "v" + i)).get();
            }
        }
        final Map<String, Object> group = Map.of(ConsumerConfig.GROUP_ID_CONFIG, "assigned-group");
        try (KafkaConsumer<byte[], byte[]> consumer = Clients.consumer(cluster.bootstrapServers(), group))
        {
            final List<ConsumerRecord<byte[], byte[]>> records = Clients.readAll(consumer, List.of(tp), 7, 15_000);
            assertTrue(records.size() >= 7);
            consumer.commitSync(Map.of(tp, new OffsetAndMetadata(7, "seven")));
        }
        try (KafkaConsumer<byte[], byte[]> consumer = Clients.consumer(cluster.bootstrapServers(), group))
        {
            final OffsetAndMetadata committed = consumer.committed(Set.of(tp)).get(tp);
            assertEquals(7, committed.offset());
            assertEquals("seven", committed.metadata());
            consumer.assign(List.of(tp));
            assertEquals(7, consumer.position(tp), "an assigned consumer did not resume at its committed offset");
        }
    }
}

package io.syncmirror.tests;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** Real Kafka 4.4 clients configured for tests against a cluster on loopback. */
final class Clients
{
    private Clients()
    {
    }

    static Admin admin(final String bootstrap)
    {
        return admin(bootstrap, Map.of());
    }

    /** An admin client with {@code overrides} (security settings) on top of the tests' timeouts. */
    static Admin admin(final String bootstrap, final Map<String, Object> overrides)
    {
        final Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000);
        props.putAll(overrides);
        return Admin.create(props);
    }

    static KafkaProducer<byte[], byte[]> producer(final String bootstrap, final Map<String, Object> overrides)
    {
        final Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 60_000);
        props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        props.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, 100);
        props.putAll(overrides);
        return new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
    }

    static KafkaConsumer<byte[], byte[]> consumer(final String bootstrap, final Map<String, Object> overrides)
    {
        final Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        props.putAll(overrides);
        return new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    static void createTopic(final Admin admin, final String topic, final int partitions, final short rf,
        final Map<String, String> configs) throws Exception
    {
        admin.createTopics(List.of(new NewTopic(topic, partitions, rf).configs(configs))).all().get();
        awaitCondition(() -> fullyReplicated(admin, topic, rf), 30_000, "topic " + topic + " never got leaders");
    }

    static void createTopic(final Admin admin, final String topic, final Map<Integer, List<Integer>> assignment,
        final Map<String, String> configs) throws Exception
    {
        admin.createTopics(List.of(new NewTopic(topic, assignment).configs(configs))).all().get();
        final int rf = assignment.values().iterator().next().size();
        awaitCondition(() -> fullyReplicated(admin, topic, rf), 30_000, "topic " + topic + " never got leaders");
    }

    static TopicDescription describe(final Admin admin, final String topic) throws Exception
    {
        return admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
    }

    private static boolean fullyReplicated(final Admin admin, final String topic, final int rf)
    {
        try
        {
            return describe(admin, topic).partitions().stream()
                .allMatch(p -> p.leader() != null && p.isr().size() == rf);
        }
        catch (final Exception ex)
        {
            return false;
        }
    }

    /** The leader of partition 0 of {@code topic}, or -1 when it has none or the cluster does not answer. */
    static int leaderOf(final Admin admin, final String topic)
    {
        try
        {
            final var leader = describe(admin, topic).partitions().get(0).leader();
            return leader == null ? -1 : leader.id();
        }
        catch (final Exception ex)
        {
            return -1;
        }
    }

    /** The ISR of partition 0 of {@code topic}, sorted; empty when the cluster does not answer. */
    static List<Integer> sortedIsr(final Admin admin, final String topic)
    {
        try
        {
            final List<Integer> isr = new ArrayList<>(describe(admin, topic).partitions().get(0).isr().stream()
                .map(node -> node.id()).toList());
            isr.sort(null);
            return isr;
        }
        catch (final Exception ex)
        {
            return List.of();
        }
    }

    /**
     * Every record of partitions 0 to {@code partitions - 1} of {@code topic}, read uncommitted from the start to the
     * end offsets the read began with; fails when that takes longer than {@code timeoutMs}.
     */
    static List<ConsumerRecord<byte[], byte[]>> readToEnd(final String bootstrap, final String topic,
        final int partitions, final long timeoutMs)
    {
        return readToEnd(bootstrap, Map.of(), topic, partitions, timeoutMs);
    }

    /** The same with {@code security} (Kafka client settings) on the consumer. */
    static List<ConsumerRecord<byte[], byte[]>> readToEnd(final String bootstrap, final Map<String, Object> security,
        final String topic, final int partitions, final long timeoutMs)
    {
        final List<TopicPartition> tps = new ArrayList<>();
        for (int p = 0; p < partitions; p++)
        {
            tps.add(new TopicPartition(topic, p));
        }
        final Map<String, Object> settings = new HashMap<>(security);
        settings.put("isolation.level", "read_uncommitted");
        settings.put("max.poll.records", 5000);
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(bootstrap, settings))
        {
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            final Map<TopicPartition, Long> ends = consumer.endOffsets(tps, Duration.ofSeconds(30));
            final List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
            final long deadlineMs = System.currentTimeMillis() + timeoutMs;
            while (tps.stream().anyMatch(tp -> consumer.position(tp) < ends.get(tp)))
            {
                if (System.currentTimeMillis() > deadlineMs)
                {
                    throw new AssertionError("could not read " + topic + " to its end offsets " + ends + " within " +
                        timeoutMs + " ms");
                }
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
            return records;
        }
    }

    /** The latest offset (for a read_uncommitted reader, the HW) of each of {@code partitions}, asked of {@code admin}. */
    static Map<TopicPartition, Long> endOffsets(final Admin admin, final Collection<TopicPartition> partitions,
        final long timeoutMs) throws Exception
    {
        final Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        partitions.forEach(tp -> request.put(tp, OffsetSpec.latest()));
        final Map<TopicPartition, Long> ends = new HashMap<>();
        admin.listOffsets(request).all().get(timeoutMs, TimeUnit.MILLISECONDS)
            .forEach((tp, info) -> ends.put(tp, info.offset()));
        return ends;
    }

    /** Reads {@code count} records of the given partitions from their start. */
    static List<ConsumerRecord<byte[], byte[]>> readAll(final KafkaConsumer<byte[], byte[]> consumer,
        final Collection<TopicPartition> partitions, final int count, final long timeoutMs)
    {
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        final List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        final long deadline = System.currentTimeMillis() + timeoutMs;
        while (records.size() < count && System.currentTimeMillis() < deadline)
        {
            consumer.poll(Duration.ofMillis(200)).forEach(records::add);
        }
        return records;
    }

    static void awaitCondition(final BooleanSupplier condition, final long timeoutMs, final String message)
        throws InterruptedException
    {
        final long deadline = System.currentTimeMillis() + timeoutMs;
        while (!condition.getAsBoolean())
        {
            assertTrue(System.currentTimeMillis() < deadline, message);
            Thread.sleep(50);
        }
    }
}

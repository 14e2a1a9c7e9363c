package io.syncmirror.bench.e2e;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import io.syncmirror.broker.cluster.EmbeddedCluster;
import io.syncmirror.protocol.AddTopicsToMirrorRequestData;
import io.syncmirror.protocol.AddTopicsToMirrorResponseData;
import io.syncmirror.protocol.CreateClusterMirrorRequestData;
import io.syncmirror.protocol.CreateClusterMirrorResponseData;
import io.syncmirror.protocol.MirrorWireClient;

/**
 * Asynchronous mirroring's replication delay, end to end: an acks=all producer on a 1-broker source cluster at a
 * fixed rate, a consumer on a 1-broker destination cluster that mirrors the topic, both in this JVM; each record
 * carries its send time, and the delay from send to the destination consumer is recorded (HdrHistogram, us)
 * beside the source's own ack latency. Prints p50/p99/p99.9/max of both.
 *
 * <p>{@code java -cp benchmarks.jar io.syncmirror.bench.e2e.MirrorLagHarness [rate/s] [seconds] [bytes]}
 * (defaults 1000, 20, 100; the first 5 seconds are warm-up).
 */
public final class MirrorLagHarness
{
    private static final String TOPIC = "mirror-lag";
    private static final long WARMUP_NS = TimeUnit.SECONDS.toNanos(5);

    private MirrorLagHarness()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final int rate = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        final int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 20;
        final int size = Math.max(8, args.length > 2 ? Integer.parseInt(args[2]) : 100);
        final Map<String, String> fast = Map.of("mirror.coordinator.tick.ms", "50",
            "mirror.metadata.refresh.interval.ms", "1000");
        try (EmbeddedCluster source = EmbeddedCluster.start(1, fast);
             EmbeddedCluster destination = EmbeddedCluster.start(1, fast))
        {
            try (Admin admin = Admin.create(Map.of("bootstrap.servers", source.bootstrapServers())))
            {
                admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short)1))).all().get();
            }
            try (MirrorWireClient client = MirrorWireClient.connect("127.0.0.1", destination.port(1), "mirror-lag",
                10_000, 30_000))
            {
                final CreateClusterMirrorResponseData created = client.send(new CreateClusterMirrorRequestData()
                    .setMirrorName("lag").setSourceBootstrapServers(source.bootstrapServers()),
                    CreateClusterMirrorResponseData.class);
                require(created.errorCode() == 0, "create mirror: " + created.errorMessage());
                final AddTopicsToMirrorResponseData added = client.send(new AddTopicsToMirrorRequestData().setTopics(
                    List.of(new AddTopicsToMirrorRequestData.TopicState().setTopicName(TOPIC).setMirrorName("lag"))),
                    AddTopicsToMirrorResponseData.class);
                require(added.topics().get(0).errorCode() == 0, "add topic: " + added.topics().get(0).errorMessage());
            }
            run(source, destination, rate, seconds, size);
        }
    }

    private static void run(final EmbeddedCluster source, final EmbeddedCluster destination, final int rate,
        final int seconds, final int size) throws Exception
    {
        final Histogram ack = new Histogram(TimeUnit.SECONDS.toMicros(60), 3);
        final Histogram mirrored = new Histogram(TimeUnit.SECONDS.toMicros(60), 3);
        final AtomicBoolean consuming = new AtomicBoolean(true);
        final long startNs = System.nanoTime();
        final Thread consumer = new Thread(() -> consume(destination, mirrored, startNs, consuming), "lag-consumer");
        consumer.start();
        final Map<String, Object> config = new HashMap<>(PacedProducer.producerConfig(source.bootstrapServers(),
            "mirror-lag"));
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config))
        {
            final long intervalNs = TimeUnit.SECONDS.toNanos(1) / rate;
            final long endNs = startNs + TimeUnit.SECONDS.toNanos(seconds);
            long dueNs = startNs;
            while (dueNs < endNs)
            {
                LockSupport.parkNanos(dueNs - System.nanoTime());
                final long sentNs = System.nanoTime();
                final byte[] value = ByteBuffer.allocate(size).putLong(sentNs).array();
                producer.send(new ProducerRecord<>(TOPIC, 0, null, value), (metadata, error) ->
                {
                    if (error == null && sentNs - startNs > WARMUP_NS)
                    {
                        ack.recordValue(Math.max(1, (System.nanoTime() - sentNs) / 1_000));
                    }
                });
                dueNs += intervalNs;
            }
            producer.flush();
        }
        Thread.sleep(2_000);
        consuming.set(false);
        consumer.join();
        System.out.printf("rate=%d/s size=%dB measured=%ds (after %ds warm-up)%n", rate, size,
            seconds - WARMUP_NS / 1_000_000_000L, WARMUP_NS / 1_000_000_000L);
        print("source ack (acks=all)        ", ack);
        print("send -> destination consumer ", mirrored);
    }

    private static void consume(final EmbeddedCluster destination, final Histogram mirrored, final long startNs,
        final AtomicBoolean consuming)
    {
        final Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, destination.bootstrapServers());
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "500");
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props))
        {
            final TopicPartition tp = new TopicPartition(TOPIC, 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            while (consuming.get())
            {
                for (final ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(100)))
                {
                    final long sentNs = ByteBuffer.wrap(record.value()).getLong();
                    if (sentNs - startNs > WARMUP_NS)
                    {
                        mirrored.recordValue(Math.max(1, (System.nanoTime() - sentNs) / 1_000));
                    }
                }
            }
        }
    }

    private static void print(final String what, final Histogram h)
    {
        System.out.printf("%s n=%d p50_us=%d p99_us=%d p999_us=%d max_us=%d%n", what, h.getTotalCount(),
            h.getValueAtPercentile(50), h.getValueAtPercentile(99), h.getValueAtPercentile(99.9), h.getMaxValue());
    }

    private static void require(final boolean condition, final String message)
    {
        if (!condition)
        {
            throw new IllegalStateException(message);
        }
    }
}

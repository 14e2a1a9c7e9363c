package io.syncmirror.bench.e2e;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Consumer fetch throughput of one broker, the reference broker's and Kafka 4.4's, each in plaintext and in TLS,
 * in alternating rounds in one process: what TLS costs a fetch, where the plaintext path sends the records from
 * the segment files with {@code transferTo} and the TLS path must read them into buffers to encrypt them.
 *
 * <p>Each round starts a fresh 1-broker cluster of one system (durable storage on both), writes {@code --mb}
 * megabytes of {@code --size}-byte records to one partition (not measured), then reads them all from the start
 * with one consumer and reports MB/s and the process CPU over that read. Prints ROUND lines, then per system the
 * median over rounds, and the ratios TLS/plaintext and ours/Kafka.
 *
 * <pre>
 *   java -cp benchmarks/target/benchmarks.jar io.syncmirror.bench.e2e.FetchThroughputHarness \
 *       [--systems ours,kafka,ours-tls,kafka-tls] [--rounds 3] [--mb 256] [--size 1024]
 * </pre>
 */
public final class FetchThroughputHarness
{
    private static final String TOPIC = "fetch-throughput";
    private static final long TIMEOUT_MS = 300_000;

    /** One round's figures. */
    record Round(String system, int round, long bytes, double seconds, double cpuPercent)
    {
        double mbPerSecond()
        {
            return bytes / 1e6 / seconds;
        }
    }

    private FetchThroughputHarness()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        List<String> systems = List.of(OursClusterFactory.NAME, KafkaReferenceCluster.NAME, OursClusterFactory.TLS_NAME,
            KafkaReferenceCluster.TLS_NAME);
        int rounds = 3;
        int megabytes = 256;
        int size = 1024;
        for (int i = 0; i + 1 < args.length; i += 2)
        {
            switch (args[i])
            {
                case "--systems" -> systems = List.of(args[i + 1].split(","));
                case "--rounds" -> rounds = Integer.parseInt(args[i + 1]);
                case "--mb" -> megabytes = Integer.parseInt(args[i + 1]);
                case "--size" -> size = Integer.parseInt(args[i + 1]);
                default ->
                {
                    System.err.println("unknown option " + args[i]);
                    System.exit(2);
                }
            }
        }
        final int status = run(systems, rounds, megabytes, size, System.out);
        // Kafka leaves a few non-daemon threads of its own behind after a clean close.
        System.exit(status);
    }

    static int run(final List<String> systems, final int rounds, final int megabytes, final int size,
        final PrintStream out) throws Exception
    {
        out.printf(Locale.ROOT, "== fetch throughput: 1 broker, 1 partition, %d MB of %d B records, %d round(s)%n",
            megabytes, size, rounds);
        final List<Round> results = new ArrayList<>();
        for (int round = 1; round <= rounds; round++)
        {
            for (final String system : systems)
            {
                final Round result = runRound(system, round, (long)megabytes * 1_000_000L, size);
                results.add(result);
                out.printf(Locale.ROOT, "ROUND system=%s round=%d bytes=%d seconds=%.2f mb_per_s=%.1f cpu_pct=%.0f%n",
                    system, round, result.bytes(), result.seconds(), result.mbPerSecond(), result.cpuPercent());
            }
        }
        final Map<String, double[]> medians = new LinkedHashMap<>();
        out.printf(Locale.ROOT, "%-18s %10s %10s %7s%n", "system", "MB/s", "cpu %", "rounds");
        for (final String system : systems)
        {
            final List<Round> own = results.stream().filter(r -> r.system().equals(system)).toList();
            final double[] figures = {
                ProduceLatencyHarness.median(own.stream().mapToDouble(Round::mbPerSecond).toArray()),
                ProduceLatencyHarness.median(own.stream().mapToDouble(Round::cpuPercent).toArray())};
            medians.put(system, figures);
            out.printf(Locale.ROOT, "%-18s %10.1f %10.0f %7d%n", system, figures[0], figures[1], own.size());
        }
        for (final String[] pair : new String[][] {
            {OursClusterFactory.TLS_NAME, OursClusterFactory.NAME},
            {KafkaReferenceCluster.TLS_NAME, KafkaReferenceCluster.NAME},
            {OursClusterFactory.NAME, KafkaReferenceCluster.NAME},
            {OursClusterFactory.TLS_NAME, KafkaReferenceCluster.TLS_NAME}})
        {
            if (medians.containsKey(pair[0]) && medians.containsKey(pair[1]))
            {
                out.printf(Locale.ROOT, "%-18s %10.2f%n", pair[0] + "/" + pair[1],
                    medians.get(pair[0])[0] / medians.get(pair[1])[0]);
            }
        }
        return 0;
    }

    private static Round runRound(final String system, final int round, final long bytes, final int size)
        throws Exception
    {
        try (ClusterUnderTest cluster = ProduceLatencyHarness.factory(system).start(1))
        {
            cluster.createTopic(TOPIC, 1, (short)1, Map.of());
            final long records = bytes / size;
            write(cluster, records, size);
            System.gc();
            final Map<String, Object> config = new HashMap<>(cluster.clientConfigs());
            config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
            config.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 8 * 1024 * 1024);
            config.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, 64 * 1024 * 1024);
            config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 10_000);
            try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(),
                new ByteArrayDeserializer()))
            {
                final TopicPartition partition = new TopicPartition(TOPIC, 0);
                consumer.assign(List.of(partition));
                consumer.seekToBeginning(List.of(partition));
                consumer.position(partition);
                final long cpuStartNs = WindowMeter.processCpuTimeNs();
                final long startNs = System.nanoTime();
                long read = 0;
                long readBytes = 0;
                while (read < records)
                {
                    if (System.nanoTime() - startNs > TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MS))
                    {
                        throw new IllegalStateException(system + ": read " + read + " of " + records + " records");
                    }
                    for (final ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(100)))
                    {
                        read++;
                        readBytes += record.serializedValueSize();
                    }
                }
                final long wallNs = System.nanoTime() - startNs;
                return new Round(system, round, readBytes, wallNs / 1e9,
                    PacedProducer.cpuPercent(cpuStartNs, WindowMeter.processCpuTimeNs(), wallNs));
            }
        }
    }

    private static void write(final ClusterUnderTest cluster, final long records, final int size) throws Exception
    {
        final Map<String, Object> config = new HashMap<>(cluster.clientConfigs());
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        config.put(ProducerConfig.ACKS_CONFIG, "1");
        config.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        config.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
        config.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "none");
        final byte[] value = new byte[size];
        new SplittableRandom(7).nextBytes(value);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config, new ByteArraySerializer(),
            new ByteArraySerializer()))
        {
            for (long i = 0; i < records; i++)
            {
                producer.send(new ProducerRecord<>(TOPIC, 0, null, value));
            }
            producer.flush();
        }
    }
}

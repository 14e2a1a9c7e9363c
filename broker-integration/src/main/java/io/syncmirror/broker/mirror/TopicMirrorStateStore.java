package io.syncmirror.broker.mirror;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link MirrorStateStore} on the compacted {@code __mirror_state} topic of this cluster, written and read
 * through Kafka's own producer (idempotent, acks=all) and consumer (assigned, no group) connected to this broker's
 * listener. Thread-safe: calls are serialized; the coordinator that uses it is a single thread anyway.
 *
 * <p>A record's partition is the default partitioner's choice for its key (murmur2), so a reader finds a key's
 * latest value by reading that one partition to its end. What was read is kept: a later read of the same
 * partition reads only what was appended since (other brokers' writes included), so bringing up N mirror
 * partitions costs N tail reads, not N scans of a growing topic. A partition whose log start moved past what was
 * read is read again from its start. {@link #readAnyMirror} reads every partition: it serves failback's
 * LastMirroredOffsets lookups, which are rare.
 */
public final class TopicMirrorStateStore implements MirrorStateStore
{
    private static final Logger LOG = LoggerFactory.getLogger(TopicMirrorStateStore.class);

    private final Supplier<Map<String, Object>> clusterClientConfigs;
    private final Ensure ensureTopic;
    private final long timeoutMs;
    private KafkaProducer<byte[], byte[]> producer;
    /** Volatile for {@link #close}, which wakes a read in progress on another thread; guarded by this otherwise. */
    private volatile KafkaConsumer<byte[], byte[]> consumer;
    private int partitions = -1;
    /** Per partition of the topic: the latest value of each key read so far, and where reading stopped. */
    private final Map<Integer, ReadPartition> read = new HashMap<>();

    /** What has been read of one partition. */
    private static final class ReadPartition
    {
        final Map<KeyBytes, byte[]> latest = new HashMap<>();
        long position;
    }

    /** Creates the topic if it does not exist and returns its partition count; blocking, bounded. */
    @FunctionalInterface
    public interface Ensure
    {
        int ensure(Map<String, String> topicConfig) throws Exception;
    }

    /**
     * @param clusterClientConfigs Kafka client settings for this cluster: {@code bootstrap.servers} (this broker's
     *                             own listener) and that listener's security settings
     * @param ensureTopic creates {@code __mirror_state} (compacted) through the controller when missing
     * @param timeoutMs   bound of each write or read
     */
    public TopicMirrorStateStore(final Supplier<Map<String, Object>> clusterClientConfigs, final Ensure ensureTopic,
        final long timeoutMs)
    {
        this.clusterClientConfigs = clusterClientConfigs;
        this.ensureTopic = ensureTopic;
        this.timeoutMs = timeoutMs;
    }

    @Override
    public synchronized void write(final MirrorStateRecord record)
    {
        writeRaw(record.key(), record.value());
    }

    @Override
    public synchronized CompletableFuture<Void> writeAsync(final MirrorStateRecord record)
    {
        final CompletableFuture<Void> committed = new CompletableFuture<>();
        try
        {
            ensureOpen();
            final byte[] key = record.key();
            producer.send(new ProducerRecord<>(TOPIC, partitionFor(key), key, record.value()), (metadata, e) ->
            {
                if (e == null)
                {
                    committed.complete(null);
                }
                else
                {
                    committed.completeExceptionally(new KafkaException("writing " + TOPIC + " failed: " + e, e));
                }
            });
        }
        catch (final RuntimeException e)
        {
            committed.completeExceptionally(e);
        }
        return committed;
    }

    @Override
    public synchronized void writeRaw(final byte[] key, final byte[] value)
    {
        ensureOpen();
        try
        {
            producer.send(new ProducerRecord<>(TOPIC, partitionFor(key), key, value))
                .get(timeoutMs, TimeUnit.MILLISECONDS);
        }
        catch (final ExecutionException e)
        {
            throw new KafkaException("writing " + TOPIC + " failed: " + e.getCause(), e.getCause());
        }
        catch (final TimeoutException e)
        {
            throw new KafkaException("writing " + TOPIC + " timed out after " + timeoutMs + " ms", e);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new KafkaException("interrupted writing " + TOPIC, e);
        }
    }

    @Override
    public synchronized Optional<byte[]> readRaw(final byte[] key)
    {
        ensureOpen();
        final Map<KeyBytes, byte[]> latest = scan(partitionFor(key));
        return Optional.ofNullable(latest.get(new KeyBytes(key)));
    }

    @Override
    public synchronized Optional<MirrorStateRecord> read(final String mirrorName, final Uuid topicId, final int partition)
    {
        final byte[] key = MirrorStateRecord.key(mirrorName, topicId, partition);
        return readRaw(key).map(value -> MirrorStateRecord.parse(key, value));
    }

    @Override
    public synchronized Optional<MirrorStateRecord> readAnyMirror(final Uuid topicId, final int partition)
    {
        final MirrorStateRecord[] found = new MirrorStateRecord[1];
        final long[] foundOffset = {-1L};
        forEachPartitionState((record, offset) ->
        {
            if (record.topicId().equals(topicId) && record.partition() == partition && offset > foundOffset[0])
            {
                found[0] = record;
                foundOffset[0] = offset;
            }
        });
        return Optional.ofNullable(found[0]);
    }

    @Override
    public synchronized List<MirrorStateRecord> readAll()
    {
        final List<MirrorStateRecord> all = new ArrayList<>();
        forEachPartitionState((record, offset) -> all.add(record));
        return all;
    }

    /** Every partition-state record's latest value, with its offset, read to the end of every state partition. */
    private void forEachPartitionState(final java.util.function.ObjLongConsumer<MirrorStateRecord> action)
    {
        ensureOpen();
        scanAll();
        for (int p = 0; p < partitions; p++)
        {
            for (final Map.Entry<KeyBytes, byte[]> entry : read.get(p).latest.entrySet())
            {
                final byte[] key = entry.getKey().bytes;
                if (key.length < 2 || ((key[0] << 8) | (key[1] & 0xff)) != MirrorStateRecord.PARTITION_STATE_KEY_TYPE)
                {
                    continue; // another record type (the source's registration ledger)
                }
                try
                {
                    action.accept(MirrorStateRecord.parse(key, entry.getValue()), entry.getKey().offset);
                }
                catch (final IllegalArgumentException e)
                {
                    LOG.warn("Skipping an unreadable {} record: {}", TOPIC, e.getMessage());
                }
            }
        }
    }

    /**
     * {@link #scan} of every partition at once: one request for the log starts and one for the ends of all of them,
     * then the tails together. Reading the partitions one after another cost three round trips each, seconds per
     * pass over the topic on a busy broker (a coordinator taking over thousands of partitions reads it whole).
     */
    private void scanAll()
    {
        final List<TopicPartition> all = new ArrayList<>(partitions);
        for (int p = 0; p < partitions; p++)
        {
            all.add(new TopicPartition(TOPIC, p));
        }
        consumer.assign(all);
        final Map<TopicPartition, Long> starts = consumer.beginningOffsets(all, Duration.ofMillis(timeoutMs));
        final Map<TopicPartition, Long> ends = consumer.endOffsets(all, Duration.ofMillis(timeoutMs));
        final Map<TopicPartition, Long> behind = new HashMap<>();
        for (final TopicPartition tp : all)
        {
            final ReadPartition state = read.computeIfAbsent(tp.partition(), p -> new ReadPartition());
            final long start = starts.get(tp);
            final long end = ends.get(tp);
            if (state.position < start || end < state.position)
            {
                // Below the log start (retention, a recreated topic) or past a shorter end (recreated): read again.
                state.latest.clear();
                state.position = start;
            }
            consumer.seek(tp, state.position);
            if (state.position < end)
            {
                behind.put(tp, end);
            }
        }
        final long deadlineMs = System.currentTimeMillis() + timeoutMs;
        while (!behind.isEmpty())
        {
            if (System.currentTimeMillis() > deadlineMs)
            {
                throw new KafkaException("reading " + TOPIC + " to its end timed out (" + behind.size()
                    + " partitions behind)");
            }
            for (final ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(100)))
            {
                if (record.key() != null)
                {
                    final ReadPartition state = read.get(record.partition());
                    final KeyBytes key = new KeyBytes(record.key(), record.offset());
                    state.latest.remove(key);
                    if (record.value() != null)
                    {
                        state.latest.put(key, record.value()); // a null value is a tombstone
                    }
                }
            }
            behind.entrySet().removeIf(entry ->
                consumer.position(entry.getKey(), Duration.ofMillis(timeoutMs)) >= entry.getValue());
        }
        for (final TopicPartition tp : all)
        {
            read.get(tp.partition()).position = consumer.position(tp, Duration.ofMillis(timeoutMs));
        }
    }

    /** Every key's latest value in one partition, up to its current end: what was read before plus the tail. */
    private Map<KeyBytes, byte[]> scan(final int partition)
    {
        final TopicPartition tp = new TopicPartition(TOPIC, partition);
        final ReadPartition state = read.computeIfAbsent(partition, p -> new ReadPartition());
        consumer.assign(List.of(tp));
        final long start = consumer.beginningOffsets(List.of(tp), Duration.ofMillis(timeoutMs)).get(tp);
        if (state.position < start)
        {
            // Records below the log start are gone (a recreated topic, retention): read it all again.
            state.latest.clear();
            state.position = start;
        }
        consumer.seek(tp, state.position);
        final long end = consumer.endOffsets(List.of(tp), Duration.ofMillis(timeoutMs)).get(tp);
        if (end < state.position)
        {
            // The topic was recreated with a shorter log: forget what was read of the old one.
            state.latest.clear();
            state.position = start;
            consumer.seek(tp, start);
        }
        final long deadlineMs = System.currentTimeMillis() + timeoutMs;
        while (consumer.position(tp, Duration.ofMillis(timeoutMs)) < end)
        {
            if (System.currentTimeMillis() > deadlineMs)
            {
                throw new KafkaException("reading " + tp + " to offset " + end + " timed out");
            }
            for (final ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(100)))
            {
                if (record.key() == null)
                {
                    continue;
                }
                final KeyBytes key = new KeyBytes(record.key(), record.offset());
                state.latest.remove(key);
                if (record.value() != null)
                {
                    state.latest.put(key, record.value()); // a null value is a tombstone
                }
            }
        }
        state.position = consumer.position(tp, Duration.ofMillis(timeoutMs));
        return state.latest;
    }

    private int partitionFor(final byte[] key)
    {
        return MirrorStateStore.partitionFor(key, partitions);
    }

    private void ensureOpen()
    {
        if (producer != null)
        {
            return;
        }
        try
        {
            partitions = ensureTopic.ensure(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT));
        }
        catch (final Exception e)
        {
            throw new KafkaException("cannot create " + TOPIC + ": " + e.getMessage(), e);
        }
        final Properties common = new Properties();
        common.putAll(clusterClientConfigs.get());
        common.put(ProducerConfig.CLIENT_ID_CONFIG, "mirror-state-store");
        // A third of each call's bound: a request to a leader that hangs (a paused broker accepts connections and
        // never answers) times out, the client refreshes its metadata and retries on the new leader within the
        // same call. At the clients' default of 30 s every call to a paused leader failed whole, and a mirror
        // partition that moved to this broker could not load its state until the paused broker came back.
        common.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, Long.toString(requestTimeoutMs(timeoutMs)));
        final Properties producerProps = new Properties();
        producerProps.putAll(common);
        producerProps.put(ProducerConfig.ACKS_CONFIG, "all");
        producerProps.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        producerProps.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        producerProps.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Long.toString(Math.max(timeoutMs, 1000)));
        producerProps.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        producerProps.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        final Properties consumerProps = new Properties();
        consumerProps.putAll(common);
        consumerProps.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        consumerProps.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        consumerProps.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        producer = new KafkaProducer<>(producerProps);
        consumer = new KafkaConsumer<>(consumerProps);
    }

    /** The clients' request.timeout.ms for calls bounded by {@code timeoutMs}: a third of it, at least 500 ms. */
    static long requestTimeoutMs(final long timeoutMs)
    {
        return Math.max(500L, timeoutMs / 3);
    }

    /**
     * Wakes a read in progress first (a coordinator taking over partitions while the brokers stop, its reads
     * bounded by mirror.request.timeout.ms), so close does not wait for it to time out.
     */
    @Override
    public void close()
    {
        final KafkaConsumer<byte[], byte[]> reading = consumer;
        if (reading != null)
        {
            reading.wakeup();
        }
        closeClients();
    }

    /** Whether the clients are open (a read or write made them); for tests of {@link #close}. */
    boolean clientsOpen()
    {
        return consumer != null;
    }

    private synchronized void closeClients()
    {
        if (producer != null)
        {
            producer.close(Duration.ofSeconds(1));
            consumer.close(CloseOptions.timeout(Duration.ofSeconds(1)));
            producer = null;
            consumer = null;
            read.clear();
        }
    }

    /** A record key compared by content; {@code offset} (ignored by equals) says where it was read. */
    /** A {@code __mirror_state} record key compared by content (and, when read, the offset it was read at). */
    static final class KeyBytes
    {
        final byte[] bytes;
        final long offset;

        KeyBytes(final byte[] bytes)
        {
            this(bytes, -1L);
        }

        KeyBytes(final byte[] bytes, final long offset)
        {
            this.bytes = bytes;
            this.offset = offset;
        }

        @Override
        public boolean equals(final Object other)
        {
            return other instanceof KeyBytes k && java.util.Arrays.equals(bytes, k.bytes);
        }

        @Override
        public int hashCode()
        {
            return java.util.Arrays.hashCode(bytes);
        }
    }
}

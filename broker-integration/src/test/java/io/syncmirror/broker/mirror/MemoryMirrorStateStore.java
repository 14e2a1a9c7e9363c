package io.syncmirror.broker.mirror;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.kafka.common.Uuid;

/** A {@link MirrorStateStore} in memory keeping the latest value per key, as compaction does. Thread-safe. */
final class MemoryMirrorStateStore implements MirrorStateStore
{
    final Map<String, MirrorStateRecord> records = new ConcurrentHashMap<>();
    final Map<String, byte[]> raw = new ConcurrentHashMap<>();

    @Override
    public void write(final MirrorStateRecord record)
    {
        records.put(record.mirrorName() + "/" + record.topicId() + "/" + record.partition(), record);
    }

    @Override
    public void writeRaw(final byte[] key, final byte[] value)
    {
        raw.put(Arrays.toString(key), value);
    }

    @Override
    public Optional<byte[]> readRaw(final byte[] key)
    {
        return Optional.ofNullable(raw.get(Arrays.toString(key)));
    }

    @Override
    public Optional<MirrorStateRecord> read(final String mirrorName, final Uuid topicId, final int partition)
    {
        return Optional.ofNullable(records.get(mirrorName + "/" + topicId + "/" + partition));
    }

    @Override
    public List<MirrorStateRecord> readAll()
    {
        return new ArrayList<>(records.values());
    }

    @Override
    public Optional<MirrorStateRecord> readAnyMirror(final Uuid topicId, final int partition)
    {
        return records.values().stream().filter(r -> r.topicId().equals(topicId) && r.partition() == partition)
            .findFirst();
    }

    @Override
    public void close()
    {
    }
}

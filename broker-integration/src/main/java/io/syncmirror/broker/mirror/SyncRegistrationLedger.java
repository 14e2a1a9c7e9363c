package io.syncmirror.broker.mirror;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiError;

import io.syncmirror.protocol.MirrorError;

/**
 * The source cluster's sync registration ledger (the sync text's MirrorSyncRegistration coordinator record):
 * which topics each destination mirror has registered for synchronous replication, and the sticky Released
 * markers a source-side release leaves. It decides admission of RegisterMirrorSyncTopic and applies
 * UnregisterMirrorSyncTopic (clean, or a release), persisting each mirror's entry in {@code __mirror_state}
 * before the change reaches the partition leaders through the metadata log. One instance serves one leader epoch of
 * the {@code __mirror_state} partition its mirrors' records hash to ({@link SyncLedgerOwner}). Thread-safety: not
 * thread-safe; its owner calls it from one thread at a time.
 *
 * <p>Admission, per topic of a Register: a broker that cannot gate produces on a mirror answers
 * MIRROR_SYNC_VERSION_MISMATCH; no marker admits; a Released marker with RecoveryPromotion=false answers
 * MIRROR_SYNC_RELEASED_REQUIRES_FRESH_PROMOTION (a stale Register from before the release must not re-establish
 * it); a Released marker with RecoveryPromotion=true admits and clears the marker.
 *
 * <p>Driver fencing: a destination driver numbers its Registers and Unregisters (DriverEpoch: its partition 0
 * leader epoch, then a counter). The ledger keeps the highest number it applied per topic, also after an
 * Unregister forgot the topic, and refuses a lower one FENCED_LEADER_EPOCH: a request that arrives after a newer one
 * (its sender gave up on it, or another broker took the driving over) must not undo what the newer one did. A
 * request without a number (-1: an operator's release, a failover's Unregister) is not fenced.
 *
 * <p>Record form: key = key type int16 (3), mirror name (int16 length + UTF-8); value = version int16 (0 or 1),
 * topic count int32, then per topic: name (int16 length + UTF-8), topic id (2 x int64), released int8; version 1
 * then has a fence count int32 and per fence: topic id (2 x int64), driver epoch int64.
 */
public final class SyncRegistrationLedger
{
    /** The key type of a ledger record in {@code __mirror_state}, the spec's coordinator-key apiKey 3. */
    public static final short KEY_TYPE = 3;
    private static final short VALUE_VERSION = 0;
    /** Version 1 adds the topics' driver fences after the entries; written only when there is one. */
    private static final short FENCED_VALUE_VERSION = 1;

    /** One registered (or released) topic of a mirror. */
    public record Entry(String topicName, Uuid topicId, boolean released)
    {
    }

    /** Where the ledger's records are kept: the latest value of a key, and a write committed before it returns. */
    public interface LedgerRecords
    {
        /** The latest value written under {@code key}, or empty. */
        Optional<byte[]> read(byte[] key);

        /** Writes {@code value} under {@code key}; returns once committed, or throws with nothing known written. */
        void write(byte[] key, byte[] value);
    }

    /** The source controller's side of a registration change (MirrorSyncRegistrationChange in its metadata log). */
    @FunctionalInterface
    public interface RegistrationChanges
    {
        /** Adds or removes the mirror from the topic's registration set; NONE when committed, else why not. */
        ApiError change(Uuid topicId, String mirrorName, boolean registered);
    }

    /** A topic of a Register request. */
    public record RegisterTopic(String topicName, Uuid topicId, boolean recoveryPromotion)
    {
    }

    /** One topic's answer. */
    public record Result(String topicName, short errorCode, String errorMessage)
    {
        static Result ok(final String topic)
        {
            return new Result(topic, Errors.NONE.code(), null);
        }
    }

    private final LedgerRecords store;
    private final RegistrationChanges changes;
    private final BooleanSupplier canGate;
    private final Map<String, LinkedHashMap<Uuid, Entry>> loaded = new HashMap<>();
    /** Per mirror, the highest DriverEpoch applied per topic (loaded with the entries). */
    private final Map<String, Map<Uuid, Long>> fences = new HashMap<>();

    /**
     * @param canGate whether this source cluster can gate produces on a sync mirror now (the mirror.sync.version
     *                feature is enabled and its brokers run the gate); false answers MIRROR_SYNC_VERSION_MISMATCH
     */
    public SyncRegistrationLedger(final LedgerRecords store, final RegistrationChanges changes,
        final BooleanSupplier canGate)
    {
        this.store = store;
        this.changes = changes;
        this.canGate = canGate;
    }

    /** Admits (or refuses) each topic of a Register from destination {@code mirrorName}, not fenced. */
    public List<Result> register(final String mirrorName, final List<RegisterTopic> topics)
    {
        return register(mirrorName, topics, -1L);
    }

    /** Admits (or refuses) each topic of a Register numbered {@code driverEpoch} (-1: not fenced). */
    public List<Result> register(final String mirrorName, final List<RegisterTopic> topics, final long driverEpoch)
    {
        final List<Result> results = new ArrayList<>();
        final LinkedHashMap<Uuid, Entry> entries = entries(mirrorName);
        for (final RegisterTopic topic : topics)
        {
            final Result fenced = fence(mirrorName, topic.topicName(), topic.topicId(), driverEpoch);
            if (fenced != null)
            {
                results.add(fenced);
                continue;
            }
            // Seen, admitted or not: an older request of the topic that arrives later changes nothing.
            final boolean fenceMoved = raiseFence(mirrorName, topic.topicId(), driverEpoch);
            final Entry existing = entries.get(topic.topicId());
            final Result refused = !canGate.getAsBoolean() ? new Result(topic.topicName(),
                MirrorError.MIRROR_SYNC_VERSION_MISMATCH.code(),
                "this source cluster cannot gate produces on a sync mirror (mirror.sync.version is not enabled)") :
                existing != null && existing.released() && !topic.recoveryPromotion() ? new Result(topic.topicName(),
                    MirrorError.MIRROR_SYNC_RELEASED_REQUIRES_FRESH_PROMOTION.code(), "mirror '" + mirrorName +
                        "' was released from sync for topic '" + topic.topicName() + "' by the source; only a " +
                        "recovery promotion may register it again") : null;
            if (refused != null)
            {
                if (fenceMoved)
                {
                    persist(mirrorName, entries);
                }
                results.add(refused);
                continue;
            }
            final Entry admitted = new Entry(topic.topicName(), topic.topicId(), false);
            if (!admitted.equals(existing) || fenceMoved)
            {
                entries.put(topic.topicId(), admitted);
                persist(mirrorName, entries);
            }
            results.add(apply(topic.topicName(), topic.topicId(), mirrorName, true));
        }
        return results;
    }

    /**
     * Removes each topic from the mirror's registrations: a clean unregister forgets it; a release
     * ({@code release}) keeps a sticky Released marker. A release without topics releases every topic the mirror
     * has registered. Topics the mirror never registered are answered NONE (an unregister is idempotent).
     */
    public List<Result> unregister(final String mirrorName, final List<Entry> topics, final boolean release)
    {
        return unregister(mirrorName, topics, release, -1L);
    }

    /** {@link #unregister(String, List, boolean)} numbered {@code driverEpoch} (-1: not fenced). */
    public List<Result> unregister(final String mirrorName, final List<Entry> topics, final boolean release,
        final long driverEpoch)
    {
        final LinkedHashMap<Uuid, Entry> entries = entries(mirrorName);
        final List<Result> refused = new ArrayList<>();
        final List<Entry> targets = new ArrayList<>();
        for (final Entry topic : topics)
        {
            final Result fenced = fence(mirrorName, topic.topicName(), topic.topicId(), driverEpoch);
            if (fenced == null)
            {
                targets.add(topic);
            }
            else
            {
                refused.add(fenced);
            }
        }
        if (release && topics.isEmpty())
        {
            for (final Entry entry : entries.values())
            {
                if (!entry.released())
                {
                    targets.add(entry);
                }
            }
        }
        boolean changed = false;
        for (final Entry topic : targets)
        {
            changed |= raiseFence(mirrorName, topic.topicId(), driverEpoch);
            final Entry existing = entries.get(topic.topicId());
            if (release)
            {
                final String name = existing == null ? topic.topicName() : existing.topicName();
                final Entry marker = new Entry(name, topic.topicId(), true);
                changed |= !marker.equals(entries.put(topic.topicId(), marker));
            }
            else if (existing != null && !existing.released())
            {
                entries.remove(topic.topicId());
                changed = true;
            }
        }
        if (changed)
        {
            persist(mirrorName, entries);
        }
        final List<Result> results = new ArrayList<>(refused);
        for (final Entry topic : targets)
        {
            results.add(apply(topic.topicName(), topic.topicId(), mirrorName, false));
        }
        return results;
    }

    /** FENCED_LEADER_EPOCH when the ledger applied a higher-numbered request of the topic; else null. */
    private Result fence(final String mirrorName, final String topicName, final Uuid topicId, final long driverEpoch)
    {
        entries(mirrorName); // loads the fences with the entries
        final long applied = fences.get(mirrorName).getOrDefault(topicId, -1L);
        if (driverEpoch < 0 || driverEpoch >= applied)
        {
            return null;
        }
        return new Result(topicName, Errors.FENCED_LEADER_EPOCH.code(), "request " + describe(driverEpoch) +
            " of mirror '" + mirrorName + "' for topic '" + topicName + "' is older than request " +
            describe(applied) + ", already applied");
    }

    private static String describe(final long driverEpoch)
    {
        return (driverEpoch >>> 32) + "." + (driverEpoch & 0xffffffffL);
    }

    /** Records {@code driverEpoch} as the topic's highest applied; true when it moved (to be persisted). */
    private boolean raiseFence(final String mirrorName, final Uuid topicId, final long driverEpoch)
    {
        final Map<Uuid, Long> mirrorFences = fences.get(mirrorName);
        if (driverEpoch < 0 || driverEpoch <= mirrorFences.getOrDefault(topicId, -1L))
        {
            return false;
        }
        mirrorFences.put(topicId, driverEpoch);
        return true;
    }

    /** The highest DriverEpoch applied for the topic, -1 when none. */
    public long driverFence(final String mirrorName, final Uuid topicId)
    {
        entries(mirrorName);
        return fences.get(mirrorName).getOrDefault(topicId, -1L);
    }

    /** The mirror's entries as the ledger holds them (loaded from {@code __mirror_state} on first use). */
    public List<Entry> entriesOf(final String mirrorName)
    {
        return List.copyOf(entries(mirrorName).values());
    }

    private Result apply(final String topicName, final Uuid topicId, final String mirrorName,
        final boolean registered)
    {
        final ApiError error = changes.change(topicId, mirrorName, registered);
        return error.isSuccess() ? Result.ok(topicName) :
            new Result(topicName, error.error().code(), error.messageWithFallback());
    }

    private LinkedHashMap<Uuid, Entry> entries(final String mirrorName)
    {
        LinkedHashMap<Uuid, Entry> entries = loaded.get(mirrorName);
        if (entries == null)
        {
            entries = new LinkedHashMap<>();
            final Map<Uuid, Long> mirrorFences = new HashMap<>();
            final Optional<byte[]> value = store.read(key(mirrorName));
            if (value.isPresent())
            {
                for (final Entry entry : parseValue(value.get()))
                {
                    entries.put(entry.topicId(), entry);
                }
                mirrorFences.putAll(parseFences(value.get()));
            }
            loaded.put(mirrorName, entries);
            fences.put(mirrorName, mirrorFences);
        }
        return entries;
    }

    private void persist(final String mirrorName, final Map<Uuid, Entry> entries)
    {
        try
        {
            store.write(key(mirrorName), value(entries.values(), fences.get(mirrorName)));
        }
        catch (final RuntimeException e)
        {
            loaded.remove(mirrorName); // reload what is really persisted next time
            fences.remove(mirrorName);
            throw e;
        }
    }

    /** The {@code __mirror_state} key of a mirror's ledger record. */
    public static byte[] key(final String mirrorName)
    {
        final byte[] name = mirrorName.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(2 + 2 + name.length).putShort(KEY_TYPE).putShort((short)name.length).put(name)
            .array();
    }

    static byte[] value(final java.util.Collection<Entry> entries)
    {
        return value(entries, Map.of());
    }

    static byte[] value(final java.util.Collection<Entry> entries, final Map<Uuid, Long> driverFences)
    {
        int size = 2 + 4;
        for (final Entry entry : entries)
        {
            size += 2 + entry.topicName().getBytes(StandardCharsets.UTF_8).length + 16 + 1;
        }
        if (!driverFences.isEmpty())
        {
            size += 4 + driverFences.size() * (16 + 8);
        }
        final ByteBuffer buffer = ByteBuffer.allocate(size)
            .putShort(driverFences.isEmpty() ? VALUE_VERSION : FENCED_VALUE_VERSION).putInt(entries.size());
        for (final Entry entry : entries)
        {
            final byte[] name = entry.topicName().getBytes(StandardCharsets.UTF_8);
            buffer.putShort((short)name.length).put(name);
            buffer.putLong(entry.topicId().getMostSignificantBits()).putLong(entry.topicId().getLeastSignificantBits());
            buffer.put((byte)(entry.released() ? 1 : 0));
        }
        if (!driverFences.isEmpty())
        {
            buffer.putInt(driverFences.size());
            for (final Map.Entry<Uuid, Long> fence : driverFences.entrySet())
            {
                buffer.putLong(fence.getKey().getMostSignificantBits())
                    .putLong(fence.getKey().getLeastSignificantBits()).putLong(fence.getValue());
            }
        }
        return buffer.array();
    }

    /** Reads a ledger value; IllegalArgumentException for a corrupt or newer one. */
    public static List<Entry> parseValue(final byte[] value)
    {
        try
        {
            return readEntries(ByteBuffer.wrap(value));
        }
        catch (final java.nio.BufferUnderflowException e)
        {
            throw new IllegalArgumentException("truncated sync registration record", e);
        }
    }

    /** The driver fences of a ledger value (none in a version 0 one); IllegalArgumentException for a corrupt one. */
    public static Map<Uuid, Long> parseFences(final byte[] value)
    {
        try
        {
            final ByteBuffer buffer = ByteBuffer.wrap(value);
            final boolean fenced = buffer.getShort(0) == FENCED_VALUE_VERSION;
            readEntries(buffer);
            if (!fenced)
            {
                return Map.of();
            }
            final int count = buffer.getInt();
            if (count < 0 || count > buffer.remaining() / 24)
            {
                throw new IllegalArgumentException("bad fence count " + count);
            }
            final Map<Uuid, Long> result = new HashMap<>();
            for (int i = 0; i < count; i++)
            {
                result.put(new Uuid(buffer.getLong(), buffer.getLong()), buffer.getLong());
            }
            return result;
        }
        catch (final java.nio.BufferUnderflowException e)
        {
            throw new IllegalArgumentException("truncated sync registration record", e);
        }
    }

    private static List<Entry> readEntries(final ByteBuffer buffer)
    {
        final short version = buffer.getShort();
        if (version != VALUE_VERSION && version != FENCED_VALUE_VERSION)
        {
            throw new IllegalArgumentException("unknown sync registration record version " + version);
        }
        final int count = buffer.getInt();
        if (count < 0 || count > buffer.remaining())
        {
            throw new IllegalArgumentException("bad topic count " + count);
        }
        final List<Entry> entries = new ArrayList<>(count);
        for (int i = 0; i < count; i++)
        {
            final short length = buffer.getShort();
            if (length < 0)
            {
                throw new IllegalArgumentException("bad topic name length " + length);
            }
            final byte[] name = new byte[length];
            buffer.get(name);
            entries.add(new Entry(new String(name, StandardCharsets.UTF_8), new Uuid(buffer.getLong(),
                buffer.getLong()), buffer.get() != 0));
        }
        return entries;
    }
}

package io.syncmirror.fetch;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.DisconnectException;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;

/**
 * A source node for fetcher tests: requests go over the wire format to a real {@link FetchSessionCache}, and each
 * partition is answered from a tiny leader-log model (log end offset, high watermark, epoch, an injected error
 * or diverging epoch). Thread-safe enough for one fetcher thread plus the test thread.
 */
final class FakeSourceNode implements FetchTransport
{
    /** One leader partition. */
    static final class LeaderPartition
    {
        final AtomicLong logEndOffset = new AtomicLong();
        final AtomicLong highWatermark = new AtomicLong();
        volatile int epoch;
        volatile Errors error = Errors.NONE;
        volatile FetchResponseData.EpochEndOffset diverging;
    }

    final FetchSessionCache cache = new FetchSessionCache(10, 120_000L, 3L);
    final Map<Uuid, String> topicNames = new ConcurrentHashMap<>();
    final Map<TopicPartition, LeaderPartition> leader = new ConcurrentHashMap<>();
    final List<FetchRequest> requests = new CopyOnWriteArrayList<>();
    final AtomicInteger failuresToInject = new AtomicInteger();
    /** When set, a response with no partitions is held for the request's maxWaitMs, as a long-poll is. */
    volatile boolean longPoll;
    volatile boolean completeLater;
    final List<CompletableFuture<FetchResponse>> pending = new CopyOnWriteArrayList<>();
    private final List<FetchResponse> held = new CopyOnWriteArrayList<>();
    private final AtomicInteger correlationId = new AtomicInteger();

    LeaderPartition partition(final Uuid topicId, final String name, final int partition)
    {
        topicNames.put(topicId, name);
        return leader.computeIfAbsent(new TopicPartition(name, partition), tp -> new LeaderPartition());
    }

    /** Appends {@code count} one-record batches at the leader's epoch and moves the high watermark to the end. */
    static void append(final LeaderPartition partition, final int count)
    {
        partition.logEndOffset.addAndGet(count);
        partition.highWatermark.set(partition.logEndOffset.get());
    }

    @Override
    public CompletableFuture<FetchResponse> send(final FetchRequest.Builder builder)
    {
        final short version = builder.latestAllowedVersion();
        final FetchRequest request = FetchWire.parseRequest(FetchWire.serialize(builder.build(version),
            correlationId.incrementAndGet()));
        requests.add(request);
        if (failuresToInject.getAndUpdate(n -> Math.max(0, n - 1)) > 0)
        {
            return CompletableFuture.failedFuture(new DisconnectException("injected"));
        }
        final long nowMs = System.nanoTime() / 1_000_000;
        final FetchContext context = cache.newContext(request.data(), version, request.isFromFollower(),
            topicNames::get, nowMs);
        final FetchResponse answer = FetchWire.respond(context, this::read, version, nowMs);
        final FetchResponse response = FetchWire.parseResponse(FetchWire.serialize(answer, version, 1), version);
        if (completeLater)
        {
            final CompletableFuture<FetchResponse> future = new CompletableFuture<>();
            pending.add(future);
            held.add(response);
            return future;
        }
        if (longPoll && response.data().responses().isEmpty() && request.maxWait() > 0)
        {
            return CompletableFuture.supplyAsync(() -> response,
                CompletableFuture.delayedExecutor(request.maxWait(), TimeUnit.MILLISECONDS));
        }
        return CompletableFuture.completedFuture(response);
    }

    @Override
    public boolean isReady()
    {
        return true;
    }

    /** Completes the responses held while {@link #completeLater} was set. */
    void releaseHeld()
    {
        for (int i = 0; i < pending.size(); i++)
        {
            pending.get(i).complete(held.get(i));
        }
        pending.clear();
        held.clear();
    }

    FetchRequest lastRequest()
    {
        return requests.get(requests.size() - 1);
    }

    private FetchResponseData.PartitionData read(final FetchSession partitions, final int slot)
    {
        final FetchResponseData.PartitionData data = new FetchResponseData.PartitionData()
            .setPartitionIndex(partitions.partition(slot));
        final LeaderPartition log = leader.get(new TopicPartition(partitions.topicName(slot), partitions.partition(slot)));
        if (log == null)
        {
            return data.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        }
        if (log.error != Errors.NONE)
        {
            return data.setErrorCode(log.error.code());
        }
        data.setHighWatermark(log.highWatermark.get()).setLastStableOffset(log.highWatermark.get()).setLogStartOffset(0L);
        final FetchResponseData.EpochEndOffset diverging = log.diverging;
        if (diverging != null)
        {
            log.diverging = null;
            return data.setDivergingEpoch(diverging).setRecords(MemoryRecords.EMPTY);
        }
        final long fetchOffset = partitions.fetchOffset(slot);
        final long end = log.logEndOffset.get();
        if (fetchOffset > end)
        {
            return data.setErrorCode(Errors.OFFSET_OUT_OF_RANGE.code());
        }
        final int count = (int)(end - fetchOffset);
        if (count == 0)
        {
            return data.setRecords(MemoryRecords.EMPTY);
        }
        final SimpleRecord[] records = new SimpleRecord[count];
        for (int i = 0; i < count; i++)
        {
            records[i] = new SimpleRecord(("r" + (fetchOffset + i)).getBytes(StandardCharsets.UTF_8));
        }
        return data.setRecords(MemoryRecords.withRecords(fetchOffset, Compression.NONE, log.epoch, records));
    }
}

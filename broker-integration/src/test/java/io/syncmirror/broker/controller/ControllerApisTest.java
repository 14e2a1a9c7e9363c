package io.syncmirror.broker.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.NotControllerException;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Records;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.BrokerRegistrationRequest;
import org.apache.kafka.common.requests.BrokerRegistrationResponse;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.broker.metadata.MetadataRecord;
import io.syncmirror.broker.metadata.MetadataRecordCodec;
import io.syncmirror.broker.network.RequestContext;

@Timeout(20)
class ControllerApisTest
{
    private final MemoryMetadataLog log = new MemoryMetadataLog();
    private final Controller controller = new Controller(log, System::currentTimeMillis,
        Map.of("cluster.id", "test-cluster"));
    private final ControllerApis apis = new ControllerApis(controller);

    @AfterEach
    void close()
    {
        apis.close();
    }

    private static RequestContext context(final AbstractRequest request)
    {
        return new RequestContext(new RequestHeader(request.apiKey(), request.version(), "test", 1),
            InetAddress.getLoopbackAddress(), 1, "PLAINTEXT");
    }

    private CompletableFuture<AbstractResponse> fetch(final long offset, final int maxWaitMs)
    {
        return fetch(apis, offset, maxWaitMs);
    }

    private static CompletableFuture<AbstractResponse> fetch(final ControllerApis target, final long offset,
        final int maxWaitMs)
    {
        final FetchRequestData data = new FetchRequestData().setMaxWaitMs(maxWaitMs).setMinBytes(1)
            .setMaxBytes(1 << 20).setSessionEpoch(-1)
            .setReplicaState(new FetchRequestData.ReplicaState().setReplicaId(1).setReplicaEpoch(-1))
            .setTopics(List.of(new FetchRequestData.FetchTopic().setTopicId(Uuid.METADATA_TOPIC_ID)
                .setPartitions(List.of(new FetchRequestData.FetchPartition().setPartition(0).setFetchOffset(offset)
                    .setPartitionMaxBytes(1 << 20)))));
        final FetchRequest request = new FetchRequest(data, (short) 17);
        return target.handle(context(request), request);
    }

    private AbstractResponse register(final int brokerId) throws Exception
    {
        final BrokerRegistrationRequest request = new BrokerRegistrationRequest.Builder(
            ControllerFixture.registration(brokerId, Uuid.randomUuid())).build();
        return apis.handle(context(request), request).get(5, TimeUnit.SECONDS);
    }

    private static FetchResponseData.PartitionData partition(final AbstractResponse response)
    {
        return ((FetchResponse) response).data().responses().get(0).partitions().get(0);
    }

    @Test
    void shouldParkAFetchAtTheLogEndUntilAnAppendArrives() throws Exception
    {
        final CompletableFuture<AbstractResponse> parked = fetch(0, 10_000);
        Thread.sleep(100);
        assertFalse(parked.isDone(), "a fetch at the log end waits");
        final BrokerRegistrationResponse registered = (BrokerRegistrationResponse) register(1);
        assertEquals(Errors.NONE.code(), registered.data().errorCode());
        final FetchResponseData.PartitionData p = partition(parked.get(5, TimeUnit.SECONDS));
        assertEquals(Errors.NONE.code(), p.errorCode());
        assertEquals(1, p.highWatermark());
        assertEquals(1, MetadataRecordCodec.decodeAll((Records) p.records()).size());
    }

    @Test
    void shouldAnswerAnEmptyFetchAfterMaxWait() throws Exception
    {
        final long startNs = System.nanoTime();
        final FetchResponseData.PartitionData p = partition(fetch(0, 200).get(5, TimeUnit.SECONDS));
        assertTrue(System.nanoTime() - startNs >= TimeUnit.MILLISECONDS.toNanos(150));
        assertEquals(0, p.highWatermark());
        assertEquals(0, ((Records) p.records()).sizeInBytes());
    }

    @Test
    void shouldAnswerAFetchBelowTheEndAtOnceAndOneAboveWithOffsetOutOfRange() throws Exception
    {
        register(1);
        register(2);
        final FetchResponseData.PartitionData p = partition(fetch(1, 10_000).get(5, TimeUnit.SECONDS));
        assertEquals(2, p.highWatermark());
        assertEquals(Errors.OFFSET_OUT_OF_RANGE.code(), partition(fetch(7, 0).get(5, TimeUnit.SECONDS)).errorCode());
    }

    /** A log that commits only when told, as a replicated log commits once a majority holds the records. */
    private static final class HeldMetadataLog implements MetadataLog
    {
        private final MemoryMetadataLog appended = new MemoryMetadataLog();
        private volatile long committed;

        void commitAll()
        {
            committed = appended.endOffset();
        }

        @Override
        public long append(final List<MetadataRecord> records, final long timeMs)
        {
            return appended.append(records, timeMs);
        }

        @Override
        public Records read(final long offset, final int maxBytes)
        {
            return offset >= committed ? MemoryRecords.EMPTY : appended.read(offset, maxBytes);
        }

        @Override
        public long endOffset()
        {
            return appended.endOffset();
        }

        @Override
        public long highWatermark()
        {
            return committed;
        }

        @Override
        public void close()
        {
        }
    }

    @Test
    @DisplayName("an operation is answered once its records are committed, and a parked fetch sees them only then")
    void shouldAnswerOnCommit() throws Exception
    {
        final HeldMetadataLog held = new HeldMetadataLog();
        final ScheduledExecutorService eventThread = Executors.newSingleThreadScheduledExecutor();
        final ControllerApis onHeldLog = new ControllerApis(new Controller(held, System::currentTimeMillis,
            Map.of("cluster.id", "test-cluster")), eventThread);
        try
        {
            final BrokerRegistrationRequest request = new BrokerRegistrationRequest.Builder(
                ControllerFixture.registration(1, Uuid.randomUuid())).build();
            final CompletableFuture<AbstractResponse> parked = fetch(onHeldLog, 0, 10_000);
            final CompletableFuture<AbstractResponse> answer = onHeldLog.handle(context(request), request);
            // A read behind it waits too: the controller's state already holds the uncommitted registration.
            final CompletableFuture<List<Integer>> read = onHeldLog.onEventThread(Controller::unfencedBrokers);
            eventThread.submit(() -> { }).get(5, TimeUnit.SECONDS);
            assertFalse(read.isDone(), "a read behind an uncommitted append was answered");
            assertFalse(answer.isDone(), "answered before its RegisterBroker record was committed");
            assertFalse(parked.isDone(), "a fetch at the committed end was woken by an uncommitted append");
            assertEquals(1, held.endOffset());

            held.commitAll();
            onHeldLog.onCommitted();

            final BrokerRegistrationResponse registered =
                (BrokerRegistrationResponse) answer.get(5, TimeUnit.SECONDS);
            assertEquals(Errors.NONE.code(), registered.data().errorCode());
            assertEquals(0, registered.data().brokerEpoch());
            assertEquals(List.of(), read.get(5, TimeUnit.SECONDS));
            final FetchResponseData.PartitionData fetched = partition(parked.get(5, TimeUnit.SECONDS));
            assertEquals(1, fetched.highWatermark());
            assertEquals(1, MetadataRecordCodec.decodeAll((Records) fetched.records()).size());

            final CompletableFuture<AbstractResponse> second = onHeldLog.handle(context(request),
                new BrokerRegistrationRequest.Builder(ControllerFixture.registration(2, Uuid.randomUuid())).build());
            onHeldLog.close();
            final ExecutionException failed = assertThrows(ExecutionException.class,
                () -> second.get(5, TimeUnit.SECONDS));
            assertInstanceOf(NotControllerException.class, failed.getCause(), "closed with the answer uncommitted");
        }
        finally
        {
            onHeldLog.close();
            eventThread.shutdownNow();
        }
    }

    @Test
    void shouldServeOnlyControllerApis()
    {
        assertEquals(ApiKeys.BROKER_HEARTBEAT.latestVersion(), apis.maxVersion(ApiKeys.BROKER_HEARTBEAT));
        assertEquals(2, apis.minVersion(ApiKeys.ALTER_PARTITION));
        assertEquals(-1, apis.maxVersion(ApiKeys.PRODUCE));
        assertTrue(ControllerApis.isMetadataFetch(new FetchRequestData().setTopics(List.of(
            new FetchRequestData.FetchTopic().setTopic("__cluster_metadata")))));
        assertFalse(ControllerApis.isMetadataFetch(new FetchRequestData().setTopics(List.of(
            new FetchRequestData.FetchTopic().setTopic("orders")))));
    }

    @Test
    void shouldServeTheInProcessClient() throws Exception
    {
        final BrokerRegistrationResponse response = apis.localClient().<BrokerRegistrationResponse>send(
            new BrokerRegistrationRequest.Builder(ControllerFixture.registration(4, Uuid.randomUuid())))
            .get(5, TimeUnit.SECONDS);
        assertEquals(Errors.NONE.code(), response.data().errorCode());
        assertEquals(0, response.data().brokerEpoch());
    }
}

package io.syncmirror.broker.coordinator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.common.errors.CoordinatorLoadInProgressException;
import org.apache.kafka.common.errors.DisconnectException;
import org.apache.kafka.common.message.AllocateProducerIdsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AllocateProducerIdsRequest;
import org.apache.kafka.common.requests.AllocateProducerIdsResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class ProducerIdManagerTest
{
    private final ManualTime time = new ManualTime();
    private final FakeNodeClient controller = new FakeNodeClient();
    private final ProducerIdManager manager = new ProducerIdManager(3, () -> 7L, () -> controller, time, 100L);

    private static AllocateProducerIdsResponse block(final long start, final int length)
    {
        return new AllocateProducerIdsResponse(new AllocateProducerIdsResponseData().setProducerIdStart(start)
            .setProducerIdLen(length));
    }

    @Test
    void shouldWaitForTheFirstBlockThenServeIdsInOrder() throws Exception
    {
        final CompletableFuture<Long> first = manager.generateProducerId();
        assertFalse(first.isDone());
        final FakeNodeClient.Sent request = controller.take();
        final AllocateProducerIdsRequest allocate = (AllocateProducerIdsRequest) request.request();
        assertEquals(3, allocate.data().brokerId());
        assertEquals(7L, allocate.data().brokerEpoch());
        request.response().complete(block(1000, 10));
        assertEquals(1000L, first.get());
        assertEquals(1001L, manager.generateProducerId().get());
        assertEquals(0, controller.pending());
    }

    @Test
    void shouldPrefetchTheNextBlockWhenTenPercentRemain() throws Exception
    {
        final CompletableFuture<Long> first = manager.generateProducerId();
        controller.take().response().complete(block(0, 10));
        first.get();
        for (int i = 1; i < 9; i++)
        {
            assertEquals(i, manager.generateProducerId().get());
        }
        // One id left of ten: the next block is on its way before the current one runs out.
        assertEquals(1, controller.pending());
        controller.take().response().complete(block(10, 10));
        assertEquals(9L, manager.generateProducerId().get());
        final CompletableFuture<Long> fromNextBlock = manager.generateProducerId();
        assertTrue(fromNextBlock.isDone());
        assertEquals(10L, fromNextBlock.get());
    }

    @Test
    void shouldFailWaitersRetriablyWhenAllocationFailsAndBackOff() throws Exception
    {
        final CompletableFuture<Long> waiting = manager.generateProducerId();
        controller.take().response().completeExceptionally(new DisconnectException("controller gone"));
        final ExecutionException failure = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
            waiting::get);
        assertInstanceOf(CoordinatorLoadInProgressException.class, failure.getCause());
        assertTrue(manager.generateProducerId().isCompletedExceptionally(), "inside the backoff no request is sent");
        assertEquals(0, controller.pending());
        time.advance(100);
        final CompletableFuture<Long> retried = manager.generateProducerId();
        controller.take().response().complete(block(50, 5));
        assertEquals(50L, retried.get());
    }

    @Test
    void shouldIgnoreABlockThatDoesNotStartAboveTheLastOne() throws Exception
    {
        final CompletableFuture<Long> first = manager.generateProducerId();
        controller.take().response().complete(block(100, 1));
        assertEquals(100L, first.get());
        final CompletableFuture<Long> second = manager.generateProducerId();
        controller.take().response().complete(new AllocateProducerIdsResponse(new AllocateProducerIdsResponseData()
            .setErrorCode(Errors.NONE.code()).setProducerIdStart(50).setProducerIdLen(10)));
        assertTrue(second.isCompletedExceptionally());
    }
}

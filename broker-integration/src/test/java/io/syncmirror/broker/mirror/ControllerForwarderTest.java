package io.syncmirror.broker.mirror;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.protocol.AddTopicsToMirrorRequestData;
import io.syncmirror.protocol.AddTopicsToMirrorResponseData;
import io.syncmirror.protocol.CreateClusterMirrorRequestData;
import io.syncmirror.protocol.CreateClusterMirrorResponseData;
import io.syncmirror.protocol.MirrorErrorResponses;

@Timeout(10)
class ControllerForwarderTest
{
    private static final long RETRY_FOR_MS = 2_000;
    private static final List<InetSocketAddress> VOTERS = List.of(InetSocketAddress.createUnresolved("voter-1", 1),
        InetSocketAddress.createUnresolved("voter-2", 2), InetSocketAddress.createUnresolved("voter-3", 3));
    private static final ApiMessage CREATE = new CreateClusterMirrorRequestData().setMirrorName("dr");

    private final SteppedTime time = new SteppedTime();
    private final List<Integer> tried = new ArrayList<>();

    /** Answers as the map says for each voter's port: an answer, or null for no answer (IOException). */
    private ControllerForwarder.Transport voters(final Map<Integer, Supplier<ApiMessage>> answers)
    {
        return new ControllerForwarder.Transport()
        {
            @Override
            public <T extends ApiMessage> T send(final InetSocketAddress address, final ApiMessage request,
                final Class<T> type) throws IOException
            {
                tried.add(address.getPort());
                final ApiMessage answer = answers.get(address.getPort()).get();
                if (answer == null)
                {
                    throw new ConnectException("voter " + address.getPort() + " is down");
                }
                return type.cast(answer);
            }
        };
    }

    private static ApiMessage notController(final ApiMessage request)
    {
        return MirrorErrorResponses.errorResponse(request, 0, Errors.NOT_CONTROLLER.code(), "a standby");
    }

    @Test
    void shouldMoveFromADownVoterAndAStandbyToTheActiveOneAndStartThereNextTime() throws Exception
    {
        final ApiMessage created = new CreateClusterMirrorResponseData();
        final ControllerForwarder forwarder = new ControllerForwarder(VOTERS, () -> 0, RETRY_FOR_MS, time);
        final ControllerForwarder.Transport transport = voters(Map.of(1, () -> null, 2, () -> notController(CREATE),
            3, () -> created));

        assertSame(created, forwarder.send(transport, CREATE, ApiMessage.class));
        assertEquals(List.of(1, 2, 3), tried, "the believed-active voter first, then each next one");
        assertTrue(time.nowMs > 0 && time.nowMs < 500, "backed off between tries: " + time.nowMs + " ms");

        tried.clear();
        assertSame(created, forwarder.send(transport, CREATE, ApiMessage.class));
        assertEquals(List.of(3), tried, "the voter that answered as active is tried first");
    }

    @Test
    void shouldSeeANotControllerAnswerOnAnyTopicOfTheResponse() throws Exception
    {
        final AddTopicsToMirrorRequestData add = new AddTopicsToMirrorRequestData().setTopics(
            List.of(new AddTopicsToMirrorRequestData.TopicState().setTopicName("a"),
                new AddTopicsToMirrorRequestData.TopicState().setTopicName("b")));
        final AddTopicsToMirrorResponseData partly = (AddTopicsToMirrorResponseData)notController(add);
        partly.topics().get(0).setErrorCode(Errors.NONE.code());
        final AddTopicsToMirrorResponseData added = new AddTopicsToMirrorResponseData();
        final ControllerForwarder forwarder = new ControllerForwarder(VOTERS, () -> 1, RETRY_FOR_MS, time);

        assertSame(added, forwarder.send(voters(Map.of(1, () -> added, 2, () -> partly, 3, () -> null)), add,
            AddTopicsToMirrorResponseData.class));
        assertEquals(List.of(2, 3, 1), tried);
    }

    @Test
    void shouldGiveTheLastNotControllerAnswerWhenNoVoterIsActiveInTime() throws Exception
    {
        final ControllerForwarder forwarder = new ControllerForwarder(VOTERS, () -> 2, RETRY_FOR_MS, time);
        final CreateClusterMirrorResponseData answer = forwarder.send(voters(Map.of(1, () -> notController(CREATE),
            2, () -> notController(CREATE), 3, () -> notController(CREATE))), CREATE,
            CreateClusterMirrorResponseData.class);

        assertEquals(Errors.NOT_CONTROLLER.code(), answer.errorCode());
        assertTrue(tried.size() > VOTERS.size(), "went round the voters more than once: " + tried);
        assertTrue(time.nowMs <= RETRY_FOR_MS, "gave up within the retry time: " + time.nowMs + " ms");
    }

    @Test
    void shouldThrowTheLastFailureWhenNoVoterAnswersInTime()
    {
        final ControllerForwarder forwarder = new ControllerForwarder(VOTERS, () -> 0, RETRY_FOR_MS, time);
        final IOException failure = assertThrows(IOException.class, () -> forwarder.send(voters(Map.of(1, () -> null,
            2, () -> null, 3, () -> null)), CREATE, ApiMessage.class));

        assertTrue(failure.getMessage().contains("is down"), failure.toString());
        assertTrue(time.nowMs <= RETRY_FOR_MS, "gave up within the retry time: " + time.nowMs + " ms");
    }

    @Test
    void shouldStopWhenInterrupted()
    {
        final ControllerForwarder forwarder = new ControllerForwarder(VOTERS, () -> 0, RETRY_FOR_MS, time);
        Thread.currentThread().interrupt();
        try
        {
            assertThrows(InterruptedIOException.class, () -> forwarder.send(voters(Map.of(1, () -> null,
                2, () -> null, 3, () -> null)), CREATE, ApiMessage.class));
            assertEquals(List.of(1), tried);
        }
        finally
        {
            Thread.interrupted();
        }
    }

    /** Time that moves only when slept through. */
    private static final class SteppedTime implements Time
    {
        long nowMs;

        @Override
        public long milliseconds()
        {
            return nowMs;
        }

        @Override
        public long nanoseconds()
        {
            return nowMs * 1_000_000L;
        }

        @Override
        public void sleep(final long ms)
        {
            nowMs += ms;
        }

        /** As Kafka's MockTime: nothing else moves time here, so an unmet condition jumps to its deadline. */
        @Override
        public void waitObject(final Object obj, final Supplier<Boolean> condition, final long deadlineMs)
        {
            while (!condition.get())
            {
                if (nowMs >= deadlineMs)
                {
                    throw new org.apache.kafka.common.errors.TimeoutException("condition not met by " + deadlineMs);
                }
                nowMs = deadlineMs;
            }
        }
    }
}

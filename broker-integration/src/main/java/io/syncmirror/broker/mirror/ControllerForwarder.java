package io.syncmirror.broker.mirror;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.function.IntSupplier;

import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.utils.Time;

import io.syncmirror.protocol.MirrorErrorResponses;

/**
 * Sends the mirror operations that are the active controller's work (mirror definitions, adding and removing
 * topics, failover's epoch bump, sync registrations, effective mirror types) to the active controller, wherever
 * it is: to the controller listener of the voter believed active, and on an answer that says NOT_CONTROLLER, or
 * none (the voter is down), to the next voter after a backoff, until {@code retryForMs} has passed; then the last
 * answer or failure is the caller's. A voter's controller listener never forwards a request again (it answers
 * NOT_CONTROLLER while it is a standby), so a request cannot bounce between two voters that each believe the
 * other active. This is what a Kafka broker's forwarding manager does for the admin requests it forwards.
 *
 * <p>Which voter is tried first: the one that last answered here as active, else the one the node's
 * {@code ActiveControllerClient} follows (its heartbeats find a new leader within a heartbeat interval). A
 * request that reached the old leader but whose answer was lost is sent again, as Kafka's forwarding does: the
 * mirror operations are idempotent where a retry can repeat them (an existing definition answers
 * DUPLICATE_RESOURCE, a topic already added or removed is left as it is).
 *
 * <p>Thread-safety: {@link #send} from any thread but a Netty event loop (it blocks, and sleeps between tries);
 * the voter that last answered is a volatile hint.
 */
public final class ControllerForwarder
{
    private static final long BACKOFF_MS = 50;
    private static final long BACKOFF_MAX_MS = 500;

    /** One request to one address; IOException when it got no answer. */
    @FunctionalInterface
    interface Transport
    {
        <T extends ApiMessage> T send(InetSocketAddress address, ApiMessage request, Class<T> type)
            throws IOException;
    }

    private final List<InetSocketAddress> voters;
    private final IntSupplier believedActive;
    private final long retryForMs;
    private final Time time;
    /** The index of the voter that last answered as active, or -1 before any did. */
    private volatile int lastActive = -1;

    /**
     * @param voters         every voter's controller listener, in voter id order (one address without a quorum)
     * @param believedActive the index in {@code voters} of the voter this node's controller client follows
     */
    public ControllerForwarder(final List<InetSocketAddress> voters, final IntSupplier believedActive,
        final long retryForMs, final Time time)
    {
        if (voters.isEmpty())
        {
            throw new IllegalArgumentException("no controller to forward to");
        }
        this.voters = List.copyOf(voters);
        this.believedActive = believedActive;
        this.retryForMs = retryForMs;
        this.time = time;
    }

    /**
     * Sends {@code request} until a voter answers as the active controller or {@code retryForMs} has passed.
     *
     * @return the active controller's answer, or the last NOT_CONTROLLER answer when none was found in time
     * @throws IOException when the last try got no answer and the time is up
     */
    <T extends ApiMessage> T send(final Transport transport, final ApiMessage request, final Class<T> type)
        throws IOException
    {
        final long deadlineMs = time.milliseconds() + retryForMs;
        int voter = lastActive >= 0 ? lastActive : Math.floorMod(believedActive.getAsInt(), voters.size());
        long backoffMs = BACKOFF_MS;
        while (true)
        {
            T answer = null;
            IOException failure = null;
            try
            {
                answer = transport.send(voters.get(voter), request, type);
                if (!MirrorErrorResponses.errorCodes(answer).contains(Errors.NOT_CONTROLLER.code()))
                {
                    lastActive = voter;
                    return answer;
                }
            }
            catch (final IOException e)
            {
                failure = e;
            }
            if (Thread.currentThread().isInterrupted())
            {
                throw new InterruptedIOException("interrupted while forwarding to the controller");
            }
            if (time.milliseconds() + backoffMs > deadlineMs)
            {
                if (failure != null)
                {
                    throw failure;
                }
                return answer;
            }
            time.sleep(backoffMs);
            backoffMs = Math.min(BACKOFF_MAX_MS, 2 * backoffMs);
            voter = (voter + 1) % voters.size();
        }
    }
}

package io.syncmirror.broker.controller.quorum;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

import org.apache.kafka.common.errors.DisconnectException;
import org.apache.kafka.common.errors.NetworkException;
import org.apache.kafka.common.errors.NotControllerException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;

import io.syncmirror.broker.network.NodeClient;

/**
 * The way a node reaches the active controller of a metadata quorum: one {@link NodeClient} per voter (the local
 * controller in-process on a voter), and a request goes to the voter that last answered as the active one. An
 * answer of NOT_CONTROLLER, or no answer (the voter is down), moves on to the next voter after a short backoff,
 * until {@code retryForMs} has passed; then the last failure is the caller's. Brokers' RPCs (registration,
 * heartbeats, AlterPartition, forwarded CreateTopics...) thus follow leadership without knowing the Raft leader,
 * as a Kafka broker's controller channel retries NOT_CONTROLLER.
 *
 * <p>A metadata Fetch is answered by any voter from its committed log, so it stays where it is. A request that
 * reached the old leader but whose answer was lost is sent again: as with Kafka, a CreateTopics may then answer
 * TOPIC_ALREADY_EXISTS. Thread-safety: {@link #send} from any thread.
 */
public final class ActiveControllerClient implements NodeClient
{
    private static final long BACKOFF_MS = 50;
    private static final long BACKOFF_MAX_MS = 500;

    private final List<NodeClient> voters;
    private final long retryForMs;
    private final Predicate<AbstractResponse> answeredElsewhere;
    private final AtomicInteger current = new AtomicInteger();
    private final ScheduledExecutorService retries;
    private volatile boolean closed;

    /** @param voters one client per voter, in voter id order; the caller owns (and closes) them */
    public ActiveControllerClient(final List<NodeClient> voters, final long retryForMs, final String name)
    {
        this(voters, retryForMs, name, response -> response.errorCounts().containsKey(Errors.NOT_CONTROLLER));
    }

    /**
     * @param answeredElsewhere whether an answer says the request belongs to another voter (NOT_CONTROLLER for
     *                          the controller's RPCs; NOT_LEADER_OR_FOLLOWER for Raft's DescribeQuorum)
     */
    public ActiveControllerClient(final List<NodeClient> voters, final long retryForMs, final String name,
        final Predicate<AbstractResponse> answeredElsewhere)
    {
        this.answeredElsewhere = answeredElsewhere;
        if (voters.isEmpty())
        {
            throw new IllegalArgumentException("no voters");
        }
        this.voters = List.copyOf(voters);
        this.retryForMs = retryForMs;
        this.retries = Executors.newSingleThreadScheduledExecutor(r ->
        {
            final Thread t = new Thread(r, name + "-retry");
            t.setDaemon(true);
            return t;
        });
    }

    @Override
    public <R extends AbstractResponse> CompletableFuture<R> send(final AbstractRequest.Builder<?> request)
    {
        final CompletableFuture<R> answer = new CompletableFuture<>();
        attempt(request, answer, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(retryForMs), BACKOFF_MS);
        return answer;
    }

    private <R extends AbstractResponse> void attempt(final AbstractRequest.Builder<?> request,
        final CompletableFuture<R> answer, final long deadlineNs, final long backoffMs)
    {
        if (closed)
        {
            answer.completeExceptionally(new NotControllerException("the controller client is closed"));
            return;
        }
        final int tried = current.get();
        voters.get(tried).<R>send(request).whenComplete((response, error) ->
        {
            final Throwable cause = error instanceof CompletionException && error.getCause() != null ?
                error.getCause() : error;
            final boolean elsewhere = cause == null ? answeredElsewhere.test(response) : movesOn(cause);
            if (!elsewhere || System.nanoTime() - deadlineNs > 0)
            {
                if (cause == null)
                {
                    answer.complete(response);
                }
                else
                {
                    answer.completeExceptionally(cause);
                }
                return;
            }
            current.compareAndSet(tried, (tried + 1) % voters.size());
            try
            {
                retries.schedule(() -> attempt(request, answer, deadlineNs, Math.min(BACKOFF_MAX_MS, backoffMs * 2)),
                    backoffMs, TimeUnit.MILLISECONDS);
            }
            catch (final java.util.concurrent.RejectedExecutionException e)
            {
                answer.completeExceptionally(new NotControllerException("the controller client is closed"));
            }
        });
    }

    private static boolean movesOn(final Throwable cause)
    {
        return cause instanceof NotControllerException || cause instanceof DisconnectException
            || cause instanceof NetworkException || cause instanceof TimeoutException
            || cause instanceof java.io.IOException;
    }

    /** The index (in voter id order) of the voter requests go to now: the last one that answered as active. */
    public int currentVoter()
    {
        return current.get();
    }

    @Override
    public boolean isReady()
    {
        return voters.get(current.get()).isReady();
    }

    @Override
    public void close()
    {
        closed = true;
        retries.shutdownNow();
    }
}

package io.syncmirror.broker.controller.quorum;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.raft.LeaderAndEpoch;
import org.apache.kafka.raft.QuorumConfig;

import io.syncmirror.broker.network.KafkaSocketServer;
import io.syncmirror.broker.network.Listener;
import io.syncmirror.broker.network.RequestContext;
import io.syncmirror.broker.network.RequestHandler;
import io.syncmirror.broker.network.SocketServerConfig;

/**
 * Voters of the metadata quorum on loopback for tests: one socket server per voter, bound once and kept across
 * restarts of its quorum, serving {@link RaftApis} for whichever {@link MetadataQuorum} the voter runs now;
 * short Raft timeouts, so elections take well under a second.
 */
final class LoopbackVoters implements AutoCloseable
{
    static final String LISTENER = "CONTROLLER";
    static final String CLUSTER_ID = "quorum-test-cluster";
    static final int ELECTION_TIMEOUT_MS = 400;
    static final int FETCH_TIMEOUT_MS = 800;
    static final int BACKOFF_MAX_MS = 200;

    private final Path root;
    private final Map<Integer, Voter> voters = new HashMap<>();
    private final Map<Integer, InetSocketAddress> addresses = new HashMap<>();

    /** A voter: its socket server and the quorum it runs, if any. */
    static final class Voter
    {
        final int id;
        final AtomicReference<RaftApis> apis = new AtomicReference<>();
        final KafkaSocketServer server;
        volatile MetadataQuorum quorum;

        Voter(final int id)
        {
            this.id = id;
            server = new KafkaSocketServer(List.of(new Listener(LISTENER, "127.0.0.1", 0)), new Delegate(apis),
                SocketServerConfig.defaults());
            server.start();
        }

        int port()
        {
            return server.boundPort(LISTENER);
        }
    }

    /** Routes to the voter's current RaftApis; between quorum restarts a request fails (the client retries). */
    private record Delegate(AtomicReference<RaftApis> apis) implements RequestHandler
    {
        @Override
        public short maxVersion(final ApiKeys key)
        {
            return RaftApis.serves(key) || key == ApiKeys.FETCH ? key.latestVersion() : -1;
        }

        @Override
        public short minVersion(final ApiKeys key)
        {
            return key.oldestVersion();
        }

        @Override
        public CompletableFuture<AbstractResponse> handle(final RequestContext context, final AbstractRequest request)
        {
            final RaftApis current = apis.get();
            if (current == null)
            {
                return CompletableFuture.failedFuture(
                    new org.apache.kafka.common.errors.NotControllerException("voter restarting"));
            }
            return current.handle(context, request);
        }
    }

    LoopbackVoters(final int count) throws IOException
    {
        root = Files.createTempDirectory("metadata-quorum");
        for (int id = 1; id <= count; id++)
        {
            voters.put(id, new Voter(id));
        }
        voters.values().forEach(v -> addresses.put(v.id, new InetSocketAddress("127.0.0.1", v.port())));
    }

    Voter voter(final int id)
    {
        return voters.get(id);
    }

    List<Integer> ids()
    {
        return voters.keySet().stream().sorted().toList();
    }

    /** Builds voter {@code id}'s quorum on its log dir and serves its Raft RPCs; the caller registers, starts. */
    MetadataQuorum open(final int id)
    {
        final Map<String, Object> configs = new HashMap<>();
        configs.put(QuorumConfig.QUORUM_ELECTION_TIMEOUT_MS_CONFIG, ELECTION_TIMEOUT_MS);
        configs.put(QuorumConfig.QUORUM_FETCH_TIMEOUT_MS_CONFIG, FETCH_TIMEOUT_MS);
        configs.put(QuorumConfig.QUORUM_ELECTION_BACKOFF_MAX_MS_CONFIG, BACKOFF_MAX_MS);
        configs.put(QuorumConfig.QUORUM_LINGER_MS_CONFIG, 5);
        final Voter voter = voters.get(id);
        final MetadataQuorum quorum = new MetadataQuorum(new MetadataQuorum.Settings(id, Uuid.randomUuid(),
            CLUSTER_ID, root.resolve("voter-" + id).toFile(), LISTENER, addresses, configs, Map.of()), Time.SYSTEM,
            (message, cause) -> new RuntimeException(message, cause));
        voter.apis.set(new RaftApis(quorum, Time.SYSTEM));
        voter.quorum = quorum;
        return quorum;
    }

    /** A graceful leave: the quorum keeps serving while it resigns (its successor's vote ends the wait). */
    void stop(final int id)
    {
        final Voter voter = voters.get(id);
        voter.quorum.close();
        voter.apis.set(null);
        voter.quorum = null;
    }

    /** The leader every voter in {@code ids} agrees on, once they do. */
    Voter awaitLeader(final List<Integer> ids) throws InterruptedException
    {
        final int[] leader = {-1};
        waitFor(() ->
        {
            OptionalInt agreed = OptionalInt.empty();
            for (final int id : ids)
            {
                final MetadataQuorum quorum = voters.get(id).quorum;
                final LeaderAndEpoch seen = quorum == null ? LeaderAndEpoch.UNKNOWN : quorum.client().leaderAndEpoch();
                if (seen.leaderId().isEmpty() || agreed.isPresent() && agreed.getAsInt() != seen.leaderId().getAsInt())
                {
                    return false;
                }
                agreed = seen.leaderId();
            }
            leader[0] = agreed.getAsInt();
            return ids.contains(leader[0]);
        }, "a leader all of " + ids + " agree on");
        return voters.get(leader[0]);
    }

    static void waitFor(final BooleanSupplier condition, final String what) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(10);
        }
    }

    @Override
    public void close() throws IOException
    {
        // In parallel: the last voter standing waits out Kafka's 5 s graceful-shutdown timeout, once, not per voter.
        voters.values().parallelStream().filter(voter -> voter.quorum != null).forEach(voter -> stop(voter.id));
        voters.values().forEach(voter -> voter.server.close());
        Utils.delete(root.toFile());
    }
}

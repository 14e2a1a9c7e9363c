package io.syncmirror.broker.controller.quorum;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.VoteRequestData;
import org.apache.kafka.common.message.VoteResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.VoteRequest;
import org.apache.kafka.common.requests.VoteResponse;
import org.apache.kafka.raft.Batch;
import org.apache.kafka.raft.BatchReader;
import org.apache.kafka.raft.LeaderAndEpoch;
import org.apache.kafka.raft.RaftClient;
import org.apache.kafka.snapshot.SnapshotReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import io.syncmirror.broker.metadata.MetadataRecord;
import io.syncmirror.broker.network.NodeClient;
import io.syncmirror.broker.network.NodeClientConfig;
import io.syncmirror.broker.network.NodeClients;

/**
 * Three voters of Kafka's Raft on loopback, each behind our socket server with {@link RaftApis}: they elect a
 * leader, commit the leader's appends in one order on every voter, elect again when the leader leaves, a voter
 * that restarts replays its log and catches up, and bad Raft input is refused with Kafka's errors.
 */
class MetadataQuorumTest
{
    private static final String CLUSTER_ID = LoopbackVoters.CLUSTER_ID;

    private LoopbackVoters quorum;
    private final Map<Integer, CommitLog> commits = new HashMap<>();
    private NodeClients clients;

    /** What a voter's listener was handed in handleCommit, in order, and the last leader it was told of. */
    private static final class CommitLog implements RaftClient.Listener<MetadataRecord>
    {
        final List<MetadataRecord> records = Collections.synchronizedList(new ArrayList<>());
        volatile long nextOffset;
        volatile LeaderAndEpoch leader = LeaderAndEpoch.UNKNOWN;

        @Override
        public void handleCommit(final BatchReader<MetadataRecord> reader)
        {
            try (reader)
            {
                while (reader.hasNext())
                {
                    final Batch<MetadataRecord> batch = reader.next();
                    records.addAll(batch.records());
                    nextOffset = batch.lastOffset() + 1;
                }
            }
        }

        @Override
        public void handleLoadSnapshot(final SnapshotReader<MetadataRecord> reader)
        {
            reader.close();
        }

        @Override
        public void handleLoadBootstrap(final SnapshotReader<MetadataRecord> reader)
        {
            reader.close();
        }

        @Override
        public void handleLeaderChange(final LeaderAndEpoch leader)
        {
            this.leader = leader;
        }

        List<MetadataRecord> snapshot()
        {
            synchronized (records)
            {
                return List.copyOf(records);
            }
        }
    }

    @BeforeEach
    void startVoters() throws IOException
    {
        quorum = new LoopbackVoters(3);
        quorum.ids().forEach(this::startQuorum);
        clients = new NodeClients(NodeClientConfig.defaults("quorum-test"));
    }

    private void startQuorum(final int id)
    {
        final MetadataQuorum voter = quorum.open(id);
        final CommitLog log = new CommitLog();
        commits.put(id, log);
        voter.register(log);
        voter.start();
    }

    @AfterEach
    void stopVoters() throws IOException
    {
        clients.close();
        quorum.close();
    }

    @Test
    @DisplayName("three voters elect one leader and commit its appends in the same order on every voter")
    void shouldCommitTheLeadersAppendsOnEveryVoter() throws Exception
    {
        final LoopbackVoters.Voter leader = quorum.awaitLeader(List.of(1, 2, 3));
        final List<MetadataRecord> written = append(leader, 0, 20);

        awaitCommitted(List.of(1, 2, 3), written);
    }

    @Test
    @DisplayName("when the leader leaves, the others elect within the Raft timeouts and keep committing; it rejoins")
    void shouldElectAgainWhenTheLeaderLeavesAndCatchUpWhenItRejoins() throws Exception
    {
        final LoopbackVoters.Voter first = quorum.awaitLeader(List.of(1, 2, 3));
        final List<MetadataRecord> written = new ArrayList<>(append(first, 0, 10));
        awaitCommitted(List.of(1, 2, 3), written);

        quorum.stop(first.id);
        final List<Integer> rest = quorum.ids().stream().filter(id -> id != first.id).toList();
        final long leftAt = System.nanoTime();
        final LoopbackVoters.Voter second = quorum.awaitLeader(rest);
        final long electedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - leftAt);
        // A graceful leave resigns at once; the bound is what an ungraceful one may take.
        assertTrue(electedMs < LoopbackVoters.FETCH_TIMEOUT_MS + LoopbackVoters.ELECTION_TIMEOUT_MS * 2L
            + LoopbackVoters.BACKOFF_MAX_MS + 2_000,
            "new leader after " + electedMs + " ms");
        written.addAll(append(second, 10, 10));
        awaitCommitted(rest, written);

        startQuorum(first.id);
        awaitCommitted(List.of(1, 2, 3), written);
        assertEquals(second.id, quorum.awaitLeader(List.of(1, 2, 3)).id, "the rejoining voter follows the new leader");
    }

    @Test
    @DisplayName("bad Raft input: a vote from outside the voter set, a fetch with a wrong cluster id and a malformed "
        + "request are refused with Kafka's errors; the leader, its epoch and the commits go on")
    void shouldRefuseBadRaftInput() throws Exception
    {
        final LoopbackVoters.Voter leader = quorum.awaitLeader(List.of(1, 2, 3));
        final LoopbackVoters.Voter follower = quorum.voter(leader.id == 1 ? 2 : 1);
        final int epoch = leader.quorum.client().leaderAndEpoch().epoch();

        // Kafka grants votes to non-voters (a dynamic set may be stale); a static set refuses them.
        final VoteRequestData vote = VoteRequest.singletonRequest(MetadataQuorum.METADATA_PARTITION, CLUSTER_ID,
            epoch + 5, 99, epoch, Long.MAX_VALUE, false);
        final VoteResponseData voteAnswer = this.<VoteResponse>send(follower, new VoteRequest.Builder(vote)).data();
        assertEquals(Errors.INVALID_REQUEST, Errors.forCode(voteAnswer.errorCode()), voteAnswer.toString());
        assertTrue(voteAnswer.topics().isEmpty() || !voteAnswer.topics().get(0).partitions().get(0).voteGranted(),
            voteAnswer.toString());
        assertEquals(epoch, follower.quorum.client().leaderAndEpoch().epoch(), "the follower's epoch");

        final FetchRequestData fetch = new FetchRequestData()
            .setClusterId("another-cluster")
            .setReplicaState(new FetchRequestData.ReplicaState().setReplicaId(follower.id).setReplicaEpoch(-1))
            .setMaxWaitMs(0)
            .setTopics(List.of(new FetchRequestData.FetchTopic()
                .setTopic(MetadataQuorum.METADATA_PARTITION.topic())
                .setTopicId(Uuid.METADATA_TOPIC_ID)
                .setPartitions(List.of(new FetchRequestData.FetchPartition()
                    .setPartition(0)
                    .setFetchOffset(0)
                    .setLastFetchedEpoch(0)
                    .setCurrentLeaderEpoch(epoch)))));
        final FetchResponse fetchAnswer = send(leader, new FetchRequest.SimpleBuilder(fetch));
        assertEquals(Errors.INCONSISTENT_CLUSTER_ID, Errors.forCode(fetchAnswer.data().errorCode()),
            fetchAnswer.toString());

        try (Socket socket = new Socket("127.0.0.1", leader.port()))
        {
            socket.setSoTimeout(10_000);
            final DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            // A Vote (key 52) v2 header, then a body that is not a Vote.
            final byte[] frame = {0x00, 0x34, 0x00, 0x02, 0x00, 0x00, 0x00, 0x07, 0x00, 0x00, (byte) 0xff, (byte) 0xfe,
                0x13, 0x37, 0x42};
            out.writeInt(frame.length);
            out.write(frame);
            out.flush();
            assertEquals(-1, new DataInputStream(socket.getInputStream()).read(), "connection closed, no answer");
        }

        assertEquals(leader.id, quorum.awaitLeader(List.of(1, 2, 3)).id);
        assertEquals(epoch, leader.quorum.client().leaderAndEpoch().epoch(), "the leader's epoch");
        awaitCommitted(List.of(1, 2, 3), append(leader, 0, 5));
    }

    private List<MetadataRecord> append(final LoopbackVoters.Voter leader, final int from, final int count)
    {
        final List<MetadataRecord> records = new ArrayList<>();
        for (int i = from; i < from + count; i++)
        {
            records.add(new MetadataRecord.ProducerIdFloor(1000L + i));
        }
        final int epoch = leader.quorum.client().leaderAndEpoch().epoch();
        for (final MetadataRecord record : records)
        {
            leader.quorum.client().prepareAppend(epoch, List.of(record));
            leader.quorum.client().schedulePreparedAppend();
        }
        return records;
    }

    private void awaitCommitted(final List<Integer> ids, final List<MetadataRecord> expected)
        throws InterruptedException
    {
        for (final int id : ids)
        {
            final CommitLog log = commits.get(id);
            LoopbackVoters.waitFor(() -> log.snapshot().size() >= expected.size(),
                "voter " + id + " commits " + expected.size());
            assertEquals(expected, log.snapshot(), "voter " + id + "'s committed records");
        }
    }

    private <R extends AbstractResponse> R send(final LoopbackVoters.Voter voter,
        final AbstractRequest.Builder<?> request)
        throws Exception
    {
        final NodeClient client = clients.get(voter.id, "127.0.0.1", voter.port());
        return client.<R>send(request).get(10, TimeUnit.SECONDS);
    }
}

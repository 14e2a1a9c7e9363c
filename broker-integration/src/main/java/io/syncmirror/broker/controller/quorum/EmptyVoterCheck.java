package io.syncmirror.broker.controller.quorum;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.message.DescribeQuorumRequestData;
import org.apache.kafka.common.message.DescribeQuorumResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DescribeQuorumRequest;
import org.apache.kafka.common.requests.DescribeQuorumResponse;

import io.syncmirror.broker.network.NodeClient;

/**
 * Before a voter with no metadata log creates one (formatting an empty log dir on a first start), whether the
 * quorum already held a log from it: a voter whose log dir was wiped must not rejoin a static quorum empty, since
 * its vote could then help elect a leader that lacks committed records (KAFKA-14077; Kafka's dynamic voters,
 * KIP-853, solve it with directory ids, a static set cannot). The other voters are asked once with DescribeQuorum;
 * the leader's answer lists every voter's log end offset as it last fetched. If the leader says this voter's log
 * reached past 0, the log was lost, and the start is refused with the reason. On a cluster's first start no leader
 * exists yet (or it never heard of this voter): the dir is formatted. The check is as good as the leader's memory:
 * a leader elected after this voter stopped has not seen it fetch, and cannot tell.
 */
public final class EmptyVoterCheck
{
    /** How long the check waits for the other voters: connection refusals and follower answers come at once. */
    static final long WAIT_MS = 3_000;

    private EmptyVoterCheck()
    {
    }

    /**
     * Throws ConfigException if a voter among {@code others} leads the quorum and holds a log end offset above 0
     * for {@code nodeId}.
     */
    public static void refuseIfLost(final int nodeId, final Map<Integer, NodeClient> others, final String logDir)
    {
        final List<CompletableFuture<DescribeQuorumResponse>> answers = new ArrayList<>();
        for (final NodeClient voter : others.values())
        {
            answers.add(voter.<DescribeQuorumResponse>send(new DescribeQuorumRequest.Builder(
                DescribeQuorumRequest.singletonRequest(MetadataQuorum.METADATA_PARTITION)))
                .exceptionally(e -> null));
        }
        final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        for (final CompletableFuture<DescribeQuorumResponse> answer : answers)
        {
            final DescribeQuorumResponse response;
            try
            {
                response = answer.get(Math.max(0, deadlineNs - System.nanoTime()), TimeUnit.NANOSECONDS);
            }
            catch (final Exception e)
            {
                continue; // no answer in time: nothing known from this voter
            }
            if (response == null || response.data().errorCode() != Errors.NONE.code())
            {
                continue;
            }
            for (final DescribeQuorumResponseData.TopicData topic : response.data().topics())
            {
                for (final DescribeQuorumResponseData.PartitionData partition : topic.partitions())
                {
                    if (partition.errorCode() != Errors.NONE.code())
                    {
                        continue;
                    }
                    for (final DescribeQuorumResponseData.ReplicaState voter : partition.currentVoters())
                    {
                        if (voter.replicaId() == nodeId && voter.logEndOffset() > 0)
                        {
                            throw new ConfigException("log dir " + logDir + " has no metadata log, but the quorum's "
                                + "leader (node " + partition.leaderId() + ", epoch " + partition.leaderEpoch()
                                + ") holds this voter's (node " + nodeId + ") log up to offset "
                                + voter.logEndOffset() + ": its log was lost. A voter of a static quorum must not "
                                + "rejoin empty (it could help elect a leader without committed records); restore "
                                + "the log dir");
                        }
                    }
                }
            }
        }
    }
}

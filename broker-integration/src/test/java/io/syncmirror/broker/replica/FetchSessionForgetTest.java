package io.syncmirror.broker.replica;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.FetchMetadata;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.broker.metadata.PartitionState;
import io.syncmirror.broker.network.RequestContext;
import io.syncmirror.broker.storage.MemoryLogStore;
import io.syncmirror.fetch.FetchSession;
import io.syncmirror.fetch.FetchSessionCache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A leader's incremental fetch response carries only partitions its session holds (KIP-227): a partition the
 * request forgets is not answered, even when the session's last response left it to be read again (an error, or
 * records). The follower's session checks every response against what it sent and starts over with a full fetch
 * of every partition on any extra one, which at tens of thousands of partitions is what a session is there to
 * avoid. Topic creation makes this common: a follower that learns of a topic before its leader does is answered
 * UNKNOWN_TOPIC_ID (or an epoch error), backs the partition off, and so forgets it in its next request.
 */
@Timeout(30)
class FetchSessionForgetTest
{
    private static final short VERSION = 17;
    private static final int LEADER = SingleBrokerReplicas.BROKER;
    private static final int FOLLOWER = 2;
    private static final int LEADER_EPOCH = 1;
    private static final String KNOWN = "known";
    private static final Uuid KNOWN_ID = Uuid.randomUuid();
    /** A topic the follower already fetches and the leader's metadata does not have yet. */
    private static final String NEW = "new";
    private static final Uuid NEW_ID = Uuid.randomUuid();

    private final MemoryLogStore logs = new MemoryLogStore(Map.of(), Time.SYSTEM);
    private final ReplicaManager replicas = SingleBrokerReplicas.create(logs);
    private final FetchSessionCache cache = new FetchSessionCache(10, 120_000L, 1L);
    private final ReplicaApis apis = new ReplicaApis(replicas, cache, id -> KNOWN_ID.equals(id) ? KNOWN : null);
    private final List<Partition> known = new ArrayList<>();
    private int correlationId;

    @BeforeEach
    void setUp()
    {
        for (int p = 0; p < 4; p++)
        {
            replicas.onPartitionChanged(new PartitionState(KNOWN, KNOWN_ID, p, List.of(LEADER, FOLLOWER),
                List.of(LEADER, FOLLOWER), LEADER, LEADER_EPOCH, LEADER_EPOCH), Map.of());
            known.add(replicas.partitionOrNull(new TopicPartition(KNOWN, p)));
        }
    }

    @AfterEach
    void tearDown()
    {
        replicas.close();
        logs.close();
    }

    @Test
    void shouldNotAnswerAForgottenPartitionWhoseLastAnswerWasAnError() throws Exception
    {
        final FetchResponse full = fetch(FetchMetadata.INITIAL, sends(
            known(0), known(1), fresh(0), fresh(1)), List.of());
        assertEquals(Errors.UNKNOWN_TOPIC_ID.code(), partitionData(full, NEW_ID, 0).errorCode());
        assertEquals(Errors.UNKNOWN_TOPIC_ID.code(), partitionData(full, NEW_ID, 1).errorCode());
        final FetchMetadata session = FetchMetadata.newIncremental(full.sessionId());

        // The follower backs both new partitions off and forgets one of them first (the other's delay ends
        // later), as its fetcher does with each partition on its own clock.
        final FetchResponse incremental = fetch(session, sends(), List.of(fresh(1)));

        assertEquals(Errors.NONE, incremental.error());
        assertEquals(Set.of(new TopicIdPartition(NEW_ID, 0, NEW)), partitionsOf(incremental),
            "only the partition still in the session, answered with its error again");
    }

    @Test
    void shouldNotAnswerAForgottenTopicWhoseLastAnswerWasAnError() throws Exception
    {
        final FetchResponse full = fetch(FetchMetadata.INITIAL, sends(known(0), fresh(0), fresh(1)), List.of());
        final FetchMetadata session = FetchMetadata.newIncremental(full.sessionId());

        final FetchResponse incremental = fetch(session, sends(), List.of(fresh(0), fresh(1)));

        assertEquals(Errors.NONE, incremental.error());
        assertEquals(Set.of(), partitionsOf(incremental),
            "a topic the session no longer holds: its id would be unknown to the follower");
    }

    @Test
    void shouldNotAnswerAForgottenPartitionWhoseLastAnswerCarriedRecordsAndKeepTheSessionWhole() throws Exception
    {
        appendOne(known.get(0));
        final FetchResponse full = fetch(FetchMetadata.INITIAL, sends(known(0), known(1), known(2)), List.of());
        assertTrue(partitionData(full, KNOWN_ID, 0).records().sizeInBytes() > 0);
        FetchMetadata session = FetchMetadata.newIncremental(full.sessionId());

        // The follower stops fetching partition 0 (it became its leader, say) before it asks again.
        final FetchResponse forgot = fetch(session, sends(), List.of(known(0)));
        assertEquals(Errors.NONE, forgot.error());
        assertEquals(Set.of(), partitionsOf(forgot), "partition 0 left the session; the others have nothing new");
        assertEquals(0, known.get(0).watcherCount(), "nor is it watched for the session any more");
        session = session.nextIncremental();

        // A partition added next takes the forgotten one's place in the session.
        final FetchResponse added = fetch(session, sends(known(3)), List.of());
        assertEquals(Errors.NONE, added.error());
        assertEquals(Set.of(new TopicIdPartition(KNOWN_ID, 3, KNOWN)), partitionsOf(added));
        final FetchSession held = cache.get(full.sessionId());
        final Set<Integer> walked = new HashSet<>();
        int steps = 0;
        for (int slot = held.firstSlot(); slot != FetchSession.NO_SLOT && steps <= held.size(); slot = held.nextSlot(slot))
        {
            walked.add(held.partition(slot));
            steps++;
        }
        assertEquals(Set.of(1, 2, 3), walked, "the session's fetch order holds each of its partitions once");
        assertEquals(3, steps, "the session's fetch order holds each of its partitions once");
    }

    private static void appendOne(final Partition partition)
    {
        partition.appendAsLeader(MemoryRecords.withRecords(Compression.NONE,
            new SimpleRecord("v".getBytes(StandardCharsets.UTF_8))), false, null, 0, false);
    }

    private static TopicIdPartition known(final int partition)
    {
        return new TopicIdPartition(KNOWN_ID, partition, KNOWN);
    }

    private static TopicIdPartition fresh(final int partition)
    {
        return new TopicIdPartition(NEW_ID, partition, NEW);
    }

    private static Map<TopicPartition, FetchRequest.PartitionData> sends(final TopicIdPartition... partitions)
    {
        final Map<TopicPartition, FetchRequest.PartitionData> toSend = new LinkedHashMap<>();
        for (final TopicIdPartition partition : partitions)
        {
            toSend.put(partition.topicPartition(), new FetchRequest.PartitionData(partition.topicId(), 0L, 0L,
                1 << 20, Optional.of(LEADER_EPOCH), Optional.empty()));
        }
        return toSend;
    }

    /** One follower fetch with maxWait 0, so that it is answered at once. */
    private FetchResponse fetch(final FetchMetadata metadata,
        final Map<TopicPartition, FetchRequest.PartitionData> toSend, final List<TopicIdPartition> toForget)
        throws Exception
    {
        final FetchRequest request = FetchRequest.Builder
            .forReplica(VERSION, FOLLOWER, 1L, 0, 1, toSend)
            .setMaxBytes(1 << 20)
            .metadata(metadata)
            .removed(toForget)
            .replaced(List.of())
            .build(VERSION);
        final RequestHeader header = new RequestHeader(ApiKeys.FETCH, VERSION, "replica-fetcher", ++correlationId);
        final RequestContext context = new RequestContext(header, InetAddress.getLoopbackAddress(), 1L, "PLAINTEXT");
        return (FetchResponse)apis.handleFetch(context, request).get(10, TimeUnit.SECONDS);
    }

    private static Set<TopicIdPartition> partitionsOf(final FetchResponse response)
    {
        final Set<TopicIdPartition> partitions = new HashSet<>();
        for (final FetchResponseData.FetchableTopicResponse topic : response.data().responses())
        {
            final String name = KNOWN_ID.equals(topic.topicId()) ? KNOWN : NEW_ID.equals(topic.topicId()) ? NEW : "?";
            for (final FetchResponseData.PartitionData partition : topic.partitions())
            {
                partitions.add(new TopicIdPartition(topic.topicId(), partition.partitionIndex(), name));
            }
        }
        return partitions;
    }

    private static FetchResponseData.PartitionData partitionData(final FetchResponse response, final Uuid topicId,
        final int partition)
    {
        for (final FetchResponseData.FetchableTopicResponse topic : response.data().responses())
        {
            if (topicId.equals(topic.topicId()))
            {
                for (final FetchResponseData.PartitionData data : topic.partitions())
                {
                    if (data.partitionIndex() == partition)
                    {
                        return data;
                    }
                }
            }
        }
        throw new AssertionError("no " + topicId + "-" + partition + " in the response");
    }
}

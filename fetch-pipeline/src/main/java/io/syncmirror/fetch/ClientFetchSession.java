package io.syncmirror.fetch;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FetchMetadata;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fetcher's side of one KIP-227 incremental fetch session with one source node: which partitions the source's
 * session holds and with what request data, the metadata (session id, epoch) of the next request, and the topic
 * names of the session's topic ids. Not thread-safe: owned by the fetcher's one thread.
 *
 * <p>The rules are kafka-clients' {@code FetchSessionHandler} (handleResponse, handleError and Builder.build),
 * whose builder must be given every fetchable partition on every request and diffs them against the session:
 * O(session size) per request. Here the owner reports each change where it happens instead ({@link #add},
 * {@link #remove}, {@link #changed}) and an incremental request is built from those reports alone, so it costs
 * O(partitions changed since the last request); an unchanged partition costs nothing. Only a full request (a new
 * session) and checking a full response walk every partition.
 *
 * <p>The owner must report every change of a partition's request data or of whether it is fetchable; a missed
 * report leaves the source fetching with stale data until the next full request.
 *
 * <p>Two choices differ from FetchSessionHandler, neither on the wire of a well-behaved session: whether requests
 * address topics by id (v13+) counts every partition added, fetchable or not, so that a delay does not switch it;
 * and a switch starts a new session at once, where FetchSessionHandler sends the switched incremental request and
 * starts again after the source refuses it.
 */
final class ClientFetchSession
{
    private static final Logger LOG = LoggerFactory.getLogger(ClientFetchSession.class);
    private static final int MAX_NAMED_IN_PROBLEM = 5;

    /** A partition as the session sees it; the fetcher's own partition state extends it. Owner thread only. */
    abstract static class Member
    {
        final TopicPartition topicPartition;
        final Uuid topicId;
        /** The request data the source's session holds for it (last sent), null when the session does not hold it. */
        private FetchRequest.PartitionData sessionData;
        private boolean registered;
        /** Whether it is counted as fetchable, so that a repeated report does not count it twice. */
        private boolean countedFetchable;
        private boolean queued;

        Member(final TopicIdPartition partition)
        {
            this.topicPartition = partition.topicPartition();
            this.topicId = partition.topicId();
        }

        /** Whether it belongs in the next request's session (the fetcher wants data for it now). */
        abstract boolean fetchable();

        /** What a request that carries it sends; the same object until the data changes, as equals() is asked. */
        abstract FetchRequest.PartitionData requestData();

        /**
         * What the source's session holds for this partition as of the last request built, null if it holds
         * nothing for this object (never sent, forgotten, or replaced by a newer object for the same partition).
         */
        final FetchRequest.PartitionData sessionData()
        {
            return sessionData;
        }
    }

    /** What one Fetch request carries. */
    record Request(
        FetchMetadata metadata,
        Map<TopicPartition, FetchRequest.PartitionData> toSend,
        List<TopicIdPartition> toForget,
        List<TopicIdPartition> toReplace,
        boolean usesTopicIds)
    {
    }

    private final String logPrefix;
    /** What the source's session holds, by partition: the members whose sessionData is set. */
    private final HashMap<TopicPartition, Member> inSession = new HashMap<>();
    private final HashMap<Uuid, String> topicNames = new HashMap<>();
    private final HashMap<Uuid, int[]> topicMembers = new HashMap<>();
    /** Members reported since the last request was built, each once (Member.queued). */
    private final ArrayList<Member> changedSinceLastRequest = new ArrayList<>();
    private FetchMetadata next = FetchMetadata.INITIAL;
    private boolean sessionUsesTopicIds = true;
    private int fetchable;
    private int withoutTopicId;
    private long membersVisited;

    ClientFetchSession(final String logPrefix)
    {
        this.logPrefix = logPrefix;
    }

    /** A partition the fetcher starts fetching; a newer object for a partition already fetched replaces it. */
    void add(final Member member)
    {
        if (member.registered)
        {
            return;
        }
        member.registered = true;
        if (Uuid.ZERO_UUID.equals(member.topicId))
        {
            withoutTopicId++;
        }
        changed(member);
    }

    /** A partition the fetcher no longer fetches with this object: the next request forgets it. */
    void remove(final Member member)
    {
        if (!member.registered)
        {
            return;
        }
        member.registered = false;
        if (Uuid.ZERO_UUID.equals(member.topicId))
        {
            withoutTopicId--;
        }
        if (member.countedFetchable)
        {
            member.countedFetchable = false;
            fetchable--;
        }
        queue(member);
    }

    /** The member's request data or its fetchable state changed. Idempotent until the next request is built. */
    void changed(final Member member)
    {
        if (!member.registered)
        {
            return;
        }
        final boolean nowFetchable = member.fetchable();
        if (nowFetchable != member.countedFetchable)
        {
            member.countedFetchable = nowFetchable;
            fetchable += nowFetchable ? 1 : -1;
        }
        queue(member);
    }

    /** Partitions added and not removed that are fetchable now. */
    int fetchableCount()
    {
        return fetchable;
    }

    /** Partitions the source's session holds, as of the last request built. */
    int size()
    {
        return inSession.size();
    }

    /** The session id of the next request; 0 when the next request starts a new session. */
    int sessionId()
    {
        return next.sessionId();
    }

    /** The metadata the next request will carry (before a topic id switch, which {@link #build} may add). */
    FetchMetadata nextMetadata()
    {
        return next;
    }

    /** Topic names by id of the session's partitions, to read v13+ responses; a live view. */
    Map<Uuid, String> topicNames()
    {
        return Collections.unmodifiableMap(topicNames);
    }

    /** Members looked at by {@link #build} so far: a measure of the work requests cost. */
    long membersVisited()
    {
        return membersVisited;
    }

    /**
     * Builds the next request and updates the session as if the source applied it: every fetchable member for a
     * full request, else the members added or changed since the last request and the ones that left. Returns null
     * when nothing is fetchable (nothing is sent and nothing is forgotten yet: an empty incremental request would
     * close the source's session). {@code all} is every member added and not removed; only a full request walks it.
     */
    Request build(final Iterable<? extends Member> all)
    {
        if (fetchable == 0)
        {
            return null;
        }
        final boolean usesTopicIds = withoutTopicId == 0;
        if (!next.isFull() && usesTopicIds != sessionUsesTopicIds)
        {
            // A session addresses topics one way for its whole life (the source answers an incremental request
            // that switches with FETCH_SESSION_TOPIC_ID_ERROR); start a new one now rather than after that error.
            next = next.nextCloseExistingAttemptNew();
        }
        return next.isFull() ? buildFull(all, usesTopicIds) : buildIncremental(usesTopicIds);
    }

    private Request buildFull(final Iterable<? extends Member> all, final boolean usesTopicIds)
    {
        for (final Member member : inSession.values())
        {
            member.sessionData = null;
        }
        inSession.clear();
        topicNames.clear();
        topicMembers.clear();
        for (int i = 0; i < changedSinceLastRequest.size(); i++)
        {
            changedSinceLastRequest.get(i).queued = false;
        }
        changedSinceLastRequest.clear();
        final LinkedHashMap<TopicPartition, FetchRequest.PartitionData> toSend = new LinkedHashMap<>();
        for (final Member member : all)
        {
            membersVisited++;
            if (!member.registered || !member.fetchable())
            {
                continue;
            }
            final FetchRequest.PartitionData data = member.requestData();
            toSend.put(member.topicPartition, data);
            join(member, data);
        }
        if (toSend.isEmpty())
        {
            // The fetchable count disagrees with the members: never open a session with nothing in it.
            return null;
        }
        sessionUsesTopicIds = usesTopicIds;
        return new Request(next, Collections.unmodifiableMap(toSend), List.of(), List.of(), usesTopicIds);
    }

    private Request buildIncremental(final boolean usesTopicIds)
    {
        Map<TopicPartition, FetchRequest.PartitionData> toSend = Map.of();
        List<TopicIdPartition> toForget = List.of();
        List<TopicIdPartition> toReplace = List.of();
        final int changedCount = changedSinceLastRequest.size();
        membersVisited += changedCount;
        // Joining members first: a partition removed and added again (a new object) is then updated in place, or
        // replaced if its topic id changed, never forgotten and sent in one request (the source applies the sent
        // partitions before the forgotten ones, so it would drop the partition).
        for (int i = 0; i < changedCount; i++)
        {
            final Member member = changedSinceLastRequest.get(i);
            if (!member.registered || !member.fetchable())
            {
                continue;
            }
            final FetchRequest.PartitionData data = member.requestData();
            final Member holder = inSession.get(member.topicPartition);
            if (holder == member)
            {
                if (!data.equals(member.sessionData))
                {
                    toSend = put(toSend, member.topicPartition, data);
                    member.sessionData = data;
                }
                continue;
            }
            if (holder == null)
            {
                toSend = put(toSend, member.topicPartition, data);
                join(member, data);
                continue;
            }
            final FetchRequest.PartitionData previous = holder.sessionData;
            leave(holder);
            join(member, data);
            if (!previous.topicId.equals(data.topicId) && !Uuid.ZERO_UUID.equals(previous.topicId) &&
                !Uuid.ZERO_UUID.equals(data.topicId))
            {
                // A topic re-created under the same name: from v13 the source forgets the old topic id's partition.
                toReplace = add(toReplace, new TopicIdPartition(previous.topicId, member.topicPartition));
                toSend = put(toSend, member.topicPartition, data);
            }
            else if (!previous.equals(data))
            {
                toSend = put(toSend, member.topicPartition, data);
            }
        }
        for (int i = 0; i < changedCount; i++)
        {
            final Member member = changedSinceLastRequest.get(i);
            member.queued = false;
            if ((member.registered && member.fetchable()) || inSession.get(member.topicPartition) != member)
            {
                continue;
            }
            toForget = add(toForget, new TopicIdPartition(member.sessionData.topicId, member.topicPartition));
            leave(member);
        }
        changedSinceLastRequest.clear();
        if (inSession.isEmpty())
        {
            // The fetchable count disagrees with the members. An empty incremental request would close the session
            // on the source; start a new one instead, which also drops what this one still holds there.
            next = next.nextCloseExistingAttemptNew();
            return null;
        }
        return new Request(next, toSend, toForget, toReplace, usesTopicIds);
    }

    /**
     * Reads a response to the last request built and moves the session on as FetchSessionHandler.handleResponse
     * does. Returns its partitions, or null if it cannot be used (a top-level error, or partitions that do not
     * match the session): then the next request is a full one.
     *
     * @param version the version the response was read at.
     */
    Map<TopicPartition, FetchResponseData.PartitionData> handleResponse(
        final FetchResponse response, final short version)
    {
        final Errors error = response.error();
        if (error != Errors.NONE)
        {
            LOG.info("{}Source was unable to process the fetch request with {}: {}", logPrefix, next, error);
            // Only a session the source does not know is not worth closing.
            next = error == Errors.FETCH_SESSION_ID_NOT_FOUND ? FetchMetadata.INITIAL :
                next.nextCloseExistingAttemptNew();
            return null;
        }
        final Map<TopicPartition, FetchResponseData.PartitionData> data = response.responseData(topicNames, version);
        if (next.isFull())
        {
            if (data.isEmpty() && response.throttleTimeMs() > 0)
            {
                // KIP-219: a throttled full fetch is answered empty; not an error, but it opened no session.
                next = FetchMetadata.INITIAL;
                return null;
            }
            final String problem = verify(response, data, version, true);
            if (problem != null)
            {
                LOG.info("{}Source sent an invalid full fetch response: {}", logPrefix, problem);
                next = FetchMetadata.INITIAL;
                return null;
            }
            next = response.sessionId() == FetchMetadata.INVALID_SESSION_ID ? FetchMetadata.INITIAL :
                FetchMetadata.newIncremental(response.sessionId());
            return data;
        }
        final String problem = verify(response, data, version, false);
        if (problem != null)
        {
            LOG.info("{}Source sent an invalid incremental fetch response with {}: {}", logPrefix, next, problem);
            next = next.nextCloseExistingAttemptNew();
            return null;
        }
        // Session id 0: the source closed the session.
        next = response.sessionId() == FetchMetadata.INVALID_SESSION_ID ? FetchMetadata.INITIAL :
            next.nextIncremental();
        return data;
    }

    /** The last request built failed or timed out: whatever the source applied is unknown, so start again. */
    void handleError(final Throwable cause)
    {
        LOG.info("{}Error sending fetch request {}: {}", logPrefix, next, cause.toString());
        next = next.nextCloseExistingAttemptNew();
    }

    /**
     * Null if the response's partitions fit the session, else what is wrong: partitions or topic ids the session
     * does not hold, and for a full response any session partition left out. O(response), as the response's
     * partitions are distinct keys.
     */
    private String verify(final FetchResponse response, final Map<TopicPartition, FetchResponseData.PartitionData> data,
        final short version, final boolean full)
    {
        int extra = 0;
        final StringBuilder named = new StringBuilder();
        for (final TopicPartition partition : data.keySet())
        {
            if (!inSession.containsKey(partition))
            {
                if (extra++ < MAX_NAMED_IN_PROBLEM)
                {
                    named.append(' ').append(partition);
                }
            }
        }
        int unknownIds = 0;
        if (version >= 13)
        {
            for (final FetchResponseData.FetchableTopicResponse topic : response.data().responses())
            {
                if (!Uuid.ZERO_UUID.equals(topic.topicId()) && !topicNames.containsKey(topic.topicId()))
                {
                    unknownIds++;
                }
            }
        }
        final int omitted = full ? inSession.size() - (data.size() - extra) : 0;
        if (extra == 0 && unknownIds == 0 && omitted == 0)
        {
            return null;
        }
        return "omitted " + omitted + " partition(s), extra " + extra + " partition(s)" +
            (extra > 0 ? " (" + named.toString().trim() + (extra > MAX_NAMED_IN_PROBLEM ? " ..." : "") + ")" : "") +
            ", unknown topic ids " + unknownIds;
    }

    private void queue(final Member member)
    {
        if (!member.queued)
        {
            member.queued = true;
            changedSinceLastRequest.add(member);
        }
    }

    private void join(final Member member, final FetchRequest.PartitionData data)
    {
        member.sessionData = data;
        inSession.put(member.topicPartition, member);
        if (!Uuid.ZERO_UUID.equals(member.topicId))
        {
            final int[] count = topicMembers.computeIfAbsent(member.topicId, id -> new int[1]);
            if (count[0]++ == 0)
            {
                topicNames.put(member.topicId, member.topicPartition.topic());
            }
        }
    }

    private void leave(final Member member)
    {
        member.sessionData = null;
        inSession.remove(member.topicPartition, member);
        if (!Uuid.ZERO_UUID.equals(member.topicId))
        {
            final int[] count = topicMembers.get(member.topicId);
            if (count != null && --count[0] == 0)
            {
                topicMembers.remove(member.topicId);
                topicNames.remove(member.topicId);
            }
        }
    }

    private static <K, V> Map<K, V> put(final Map<K, V> map, final K key, final V value)
    {
        final Map<K, V> writable = map.isEmpty() ? new LinkedHashMap<>() : map;
        writable.put(key, value);
        return writable;
    }

    private static <T> List<T> add(final List<T> list, final T value)
    {
        final List<T> writable = list.isEmpty() ? new ArrayList<>() : list;
        writable.add(value);
        return writable;
    }
}

package io.syncmirror.fetch;

import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FetchResponse;

/**
 * Builds the Fetch response for one {@link FetchContext}: the handler offers each partition's answer in session
 * order, the context decides whether it goes in, and consecutive partitions of one topic share a topic entry
 * (addressed by id from v13, by name before). Not thread-safe: one per response, used by the thread answering.
 *
 * <p>Only included partitions cost anything here; the handler may reuse one {@code PartitionData} for the
 * partitions it checks and allocate a fresh one only when {@link #wouldInclude} says it will be sent.
 */
public final class FetchResponseAssembler
{
    private final FetchContext context;
    private final boolean topicIds;
    private final FetchResponseData data = new FetchResponseData();
    private FetchResponseData.FetchableTopicResponse currentTopic;
    private int currentTopicIndex = -1;
    private boolean built;

    /** @param version the Fetch version of the request being answered. */
    public FetchResponseAssembler(final FetchContext context, final short version)
    {
        this.context = context;
        this.topicIds = version >= 13;
    }

    /**
     * Whether {@link #maybeAdd} would add this answer (remembers nothing): records, a changed high watermark,
     * last stable offset or log start offset, an error, a diverging epoch or a preferred read replica.
     */
    public boolean wouldInclude(final int slot, final FetchResponseData.PartitionData answer)
    {
        return context.wouldInclude(slot, recordsSizeBytes(answer), answer.highWatermark(), answer.lastStableOffset(),
            answer.logStartOffset(), answer.errorCode(), mustAlwaysInclude(answer));
    }

    /**
     * Offers the answer for a slot of {@link FetchContext#partitions()}; adds it (with its partition index set)
     * if the response must carry it, and records what was sent in the session. Call once per slot.
     */
    public boolean maybeAdd(final int slot, final FetchResponseData.PartitionData answer)
    {
        if (!context.mustInclude(slot, recordsSizeBytes(answer), answer.highWatermark(), answer.lastStableOffset(),
            answer.logStartOffset(), answer.errorCode(), mustAlwaysInclude(answer)))
        {
            return false;
        }
        final FetchSession partitions = context.partitions();
        final int topicIndex = partitions.topicIndex(slot);
        if (currentTopic == null || topicIndex != currentTopicIndex)
        {
            currentTopic = new FetchResponseData.FetchableTopicResponse();
            if (topicIds)
            {
                currentTopic.setTopicId(partitions.topicId(slot));
            }
            else
            {
                currentTopic.setTopic(partitions.topicName(slot));
            }
            currentTopicIndex = topicIndex;
            data.responses().add(currentTopic);
        }
        currentTopic.partitions().add(answer.setPartitionIndex(partitions.partition(slot)));
        return true;
    }

    /**
     * Completes the context and returns the response: the session error with no partitions, or the added
     * partitions with the session id the context announces. Call once, after every slot was offered.
     */
    public FetchResponse build(final long nowMs, final int throttleTimeMs)
    {
        if (built)
        {
            throw new IllegalStateException("response already built");
        }
        built = true;
        final int sessionId = context.complete(nowMs);
        data.setThrottleTimeMs(throttleTimeMs);
        if (context.error() != Errors.NONE)
        {
            data.responses().clear();
            return FetchResponse.of(data.setErrorCode(context.error().code()).setSessionId(sessionId));
        }
        return FetchResponse.of(data.setErrorCode(Errors.NONE.code()).setSessionId(sessionId));
    }

    private static int recordsSizeBytes(final FetchResponseData.PartitionData answer)
    {
        return answer.records() == null ? 0 : answer.records().sizeInBytes();
    }

    private static boolean mustAlwaysInclude(final FetchResponseData.PartitionData answer)
    {
        return FetchResponse.isDivergingEpoch(answer) || FetchResponse.isPreferredReplica(answer);
    }
}

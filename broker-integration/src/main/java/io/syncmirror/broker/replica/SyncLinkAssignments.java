package io.syncmirror.broker.replica;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.syncmirror.broker.adapter.MirrorLinks;

/**
 * Which mirror links gate each topic hosted on this broker: a link per registered sync mirror, assigned when a
 * hosted topic first needs it and released when no hosted topic's partitions gate on it any more, so a released
 * or deleted mirror's link goes to the next one (MirrorLinks fences the old holder's late reports). A topic
 * whose registered mirror finds no free link gates on the hold link: its partitions acknowledge nothing, which
 * is logged and counted ({@link #topicsHeld}), until a link frees and {@link #releaseUnused} hands the topic
 * back to be gated again.
 *
 * <p>Owner: the metadata thread, under ReplicaManager's lock; {@link #topicsHeld} is read from any thread.
 */
final class SyncLinkAssignments
{
    private static final Logger LOG = LoggerFactory.getLogger(SyncLinkAssignments.class);

    private final MirrorLinks links;
    /** The mask each hosted topic's partitions were last given, for topics with one. */
    private final Map<Uuid, Integer> topicMasks = new HashMap<>();
    /** Per link, the hosted topics whose mask has its bit. */
    private final int[] topicsPerLink;
    private final Set<Uuid> heldTopics = ConcurrentHashMap.newKeySet();

    SyncLinkAssignments(final MirrorLinks links)
    {
        this.links = links;
        this.topicsPerLink = new int[links.links()];
    }

    /**
     * The link mask for {@code topicId}'s partitions, given its registered mirrors; links are assigned here, never
     * released (a link that leaves this topic is released by {@link #releaseUnused} once the caller published the
     * new mask to every partition, so no link changes holder under a row that still gates on it).
     */
    int maskFor(final Uuid topicId, final Set<String> registeredMirrors)
    {
        int mask = 0;
        for (final String mirror : registeredMirrors)
        {
            final int link = links.assign(mirror);
            if (link == MirrorLinks.NO_LINK)
            {
                // Never acknowledge without a registered mirror: the hold link never reports, so the HW stays.
                if (heldTopics.add(topicId))
                {
                    LOG.error("sync mirror '{}' registered for topic id {} cannot gate on this broker: its {} links "
                        + "({}) are held by other mirrors; the topic's partitions led here hold their high watermark "
                        + "(no produce is acknowledged) until a link is released or the registration goes", mirror,
                        topicId, links.links(), MirrorLinks.LINKS_CONFIG);
                }
                mask |= 1 << links.holdLink();
                continue;
            }
            mask |= 1 << link;
        }
        if ((mask & (1 << links.holdLink())) == 0 && heldTopics.remove(topicId))
        {
            LOG.info("topic id {}: every registered sync mirror has a link on this broker again", topicId);
        }
        record(topicId, mask);
        return mask;
    }

    /** No partition of {@code topicId} is hosted here any more. */
    void forget(final Uuid topicId)
    {
        record(topicId, 0);
        heldTopics.remove(topicId);
    }

    /**
     * Releases the links no hosted topic gates on, and returns the held topics to gate again when one was
     * released (empty otherwise). Call after the masks from {@link #maskFor} reached every partition.
     */
    Set<Uuid> releaseUnused()
    {
        boolean released = false;
        for (int link = 0; link < topicsPerLink.length; link++)
        {
            if (topicsPerLink[link] == 0 && links.nameOf(link) != null)
            {
                LOG.info("sync mirror link {} of '{}' released: no topic hosted here has that mirror registered",
                    link, links.nameOf(link));
                links.release(link);
                released = true;
            }
        }
        return released && !heldTopics.isEmpty() ? Set.copyOf(heldTopics) : Set.of();
    }

    /** Topics with partitions here that hold their HW because a registered sync mirror has no link here. */
    int topicsHeld()
    {
        return heldTopics.size();
    }

    private void record(final Uuid topicId, final int mask)
    {
        final int linkBits = mask & ~(1 << links.holdLink());
        final Integer before = linkBits == 0 ? topicMasks.remove(topicId) : topicMasks.put(topicId, linkBits);
        final int previous = before == null ? 0 : before;
        for (int left = previous & ~linkBits; left != 0; left &= left - 1)
        {
            topicsPerLink[Integer.numberOfTrailingZeros(left)]--;
        }
        for (int joined = linkBits & ~previous; joined != 0; joined &= joined - 1)
        {
            topicsPerLink[Integer.numberOfTrailingZeros(joined)]++;
        }
    }
}

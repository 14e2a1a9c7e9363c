package io.syncmirror.bench.e2e;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.syncmirror.protocol.DescribeClusterMirrorsRequestData;
import io.syncmirror.protocol.DescribeClusterMirrorsResponseData;
import io.syncmirror.protocol.MirrorType;
import io.syncmirror.protocol.MirrorWireClient;
import io.syncmirror.tools.MirrorAdmin;

/**
 * Promotes every benchmark topic of every destination's mirror to SYNC, as an operator would: MirrorAdmin's
 * {@code alterMirrorTopicType(mirror, topics, SYNC)} on each destination, then DescribeClusterMirrors polled on each
 * until every topic's EffectiveMirrorType is SYNC. Stateless; each call runs on its caller's thread.
 *
 * <p>A refusal of the alter call (a broker that does not serve AlterMirrorTopicType answers UNSUPPORTED_VERSION)
 * fails at once, naming the destination and the error, instead of waiting out the timeout. A promotion that is
 * accepted but not finished by the deadline fails with how many topics are SYNC and an example of one that is not.
 */
public final class SyncPromotion
{
    private static final long POLL_INTERVAL_MS = 500;
    private static final int REQUEST_TIMEOUT_MS = 120_000;

    /** Why the promotion did not finish: the message is one line, fit to print as the mode's error. */
    public static final class PromotionFailedException extends Exception
    {
        private static final long serialVersionUID = 1L;

        PromotionFailedException(final String message, final Throwable cause)
        {
            super(message, cause, false, false);
        }
    }

    private SyncPromotion()
    {
    }

    /**
     * Asks each destination (its controller node's {@code host:port}) to move {@code topics} of {@code mirrorName}
     * to SYNC and waits until each says they are.
     *
     * @return how long the promotion took, in nanoseconds
     */
    public static long promote(final List<MirrorWireClient.HostPort> destinations, final String mirrorName,
        final List<String> topics, final long timeoutNs) throws PromotionFailedException, InterruptedException
    {
        final long startNs = System.nanoTime();
        final long deadlineNs = startNs + timeoutNs;
        final Map<String, MirrorType> wanted = new LinkedHashMap<>();
        topics.forEach(topic -> wanted.put(topic, MirrorType.SYNC));
        for (int d = 0; d < destinations.size(); d++)
        {
            alter(d + 1, destinations.get(d), mirrorName, wanted, deadlineNs);
        }
        for (int d = 0; d < destinations.size(); d++)
        {
            awaitSync(d + 1, destinations.get(d), mirrorName, topics.size(), startNs, deadlineNs);
        }
        return System.nanoTime() - startNs;
    }

    private static void alter(final int index, final MirrorWireClient.HostPort destination, final String mirrorName,
        final Map<String, MirrorType> wanted, final long deadlineNs)
        throws PromotionFailedException, InterruptedException
    {
        try (MirrorAdmin admin = MirrorAdmin.create(destination.toString(), REQUEST_TIMEOUT_MS))
        {
            admin.alterMirrorTopicType(mirrorName, wanted).all().get(Math.max(1, deadlineNs - System.nanoTime()),
                TimeUnit.NANOSECONDS);
        }
        catch (final ExecutionException ex)
        {
            final Throwable cause = ex.getCause() != null ? ex.getCause() : ex;
            throw new PromotionFailedException(String.format(Locale.ROOT, "AlterMirrorTopicType(%d topic(s), SYNC) "
                + "on destination %d (%s) failed: %s: %s", wanted.size(), index, destination,
                cause.getClass().getSimpleName(), oneLine(cause.getMessage())), cause);
        }
        catch (final TimeoutException ex)
        {
            throw new PromotionFailedException(String.format(Locale.ROOT, "AlterMirrorTopicType(%d topic(s), SYNC) "
                + "on destination %d (%s) was not answered within the sync timeout", wanted.size(), index,
                destination), ex);
        }
    }

    private static void awaitSync(final int index, final MirrorWireClient.HostPort destination,
        final String mirrorName, final int expectedTopics, final long startNs, final long deadlineNs)
        throws PromotionFailedException, InterruptedException
    {
        String lastState = "no answer yet";
        try (MirrorWireClient client = MirrorWireClient.connect(destination.host(), destination.port(),
            "sync-bench-promotion", REQUEST_TIMEOUT_MS, REQUEST_TIMEOUT_MS))
        {
            while (true)
            {
                final DescribeClusterMirrorsResponseData response = client.send(new DescribeClusterMirrorsRequestData()
                    .setMirrorNames(List.of(mirrorName)), DescribeClusterMirrorsResponseData.class);
                final Tally tally = tally(response);
                if (tally.sync == expectedTopics && tally.benchmarkTopics == expectedTopics)
                {
                    return;
                }
                lastState = tally.describe(expectedTopics);
                if (System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(POLL_INTERVAL_MS) - deadlineNs > 0)
                {
                    throw new PromotionFailedException(String.format(Locale.ROOT, "promotion to SYNC on destination "
                        + "%d (%s) did not finish within %.0f s (--sync-timeout-s): %s", index, destination,
                        (deadlineNs - startNs) / 1e9, lastState), null);
                }
                Thread.sleep(POLL_INTERVAL_MS);
            }
        }
        catch (final IOException ex)
        {
            throw new PromotionFailedException(String.format(Locale.ROOT, "DescribeClusterMirrors on destination %d "
                + "(%s) failed while waiting for SYNC: %s (last seen: %s)", index, destination,
                oneLine(ex.getMessage()), lastState), ex);
        }
    }

    /** Counts of one DescribeClusterMirrors answer. */
    private static final class Tally
    {
        int benchmarkTopics;
        int sync;
        final List<String> examples = new ArrayList<>();

        String describe(final int expectedTopics)
        {
            return String.format(Locale.ROOT, "%d of %d topic(s) have EffectiveMirrorType SYNC (%d described)%s",
                sync, expectedTopics, benchmarkTopics, examples.isEmpty() ? "" : "; e.g. " + examples.get(0));
        }
    }

    private static Tally tally(final DescribeClusterMirrorsResponseData response)
    {
        final Tally tally = new Tally();
        if (response.errorCode() != 0)
        {
            tally.examples.add("DescribeClusterMirrors error code " + response.errorCode() + ": "
                + response.errorMessage());
            return tally;
        }
        for (final DescribeClusterMirrorsResponseData.MirrorDescription mirror : response.mirrors())
        {
            for (final DescribeClusterMirrorsResponseData.MirrorTopic topic : mirror.topics())
            {
                if (!topic.topicName().startsWith(MirroredClusters.TOPIC_PREFIX))
                {
                    continue;
                }
                tally.benchmarkTopics++;
                if (topic.effectiveMirrorType() == MirrorType.SYNC.id())
                {
                    tally.sync++;
                }
                else if (tally.examples.isEmpty())
                {
                    tally.examples.add(String.format(Locale.ROOT, "%s desired=%s effective=%s%s", topic.topicName(),
                        typeName(topic.desiredMirrorType()), typeName(topic.effectiveMirrorType()),
                        topic.statusMessage() == null ? "" : " status='" + oneLine(topic.statusMessage()) + "'"));
                }
            }
        }
        return tally;
    }

    private static String typeName(final byte id)
    {
        try
        {
            return MirrorType.fromId(id).name();
        }
        catch (final IllegalArgumentException ex)
        {
            return "type " + id;
        }
    }

    private static String oneLine(final String text)
    {
        return text == null ? "(no message)" : text.replaceAll("\\s+", " ").trim();
    }
}

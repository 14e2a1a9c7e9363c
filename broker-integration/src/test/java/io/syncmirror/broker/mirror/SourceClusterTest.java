package io.syncmirror.broker.mirror;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Which cached source topic description a leader lookup may use. */
class SourceClusterTest
{
    @Test
    @DisplayName("a lookup that takes a description of any age uses the cached one whatever System.nanoTime's sign "
        + "(askedAt - Long.MIN_VALUE overflows for a positive askedAt)")
    void shouldUseACachedDescriptionOfAnyAgeWhenAskedForAnyAge()
    {
        for (final long askedAt : new long[] {Long.MIN_VALUE + 1, -5_000_000_000L, -1L, 0L, 1L, 5_000_000_000L,
            Long.MAX_VALUE})
        {
            assertTrue(SourceCluster.describedSince(askedAt, SourceCluster.ANY_AGE), "asked at " + askedAt);
        }
    }

    @Test
    @DisplayName("a lookup that needs a description from this tick on uses one asked for since, and asks again for "
        + "an older one, across nanoTime's wrap")
    void shouldAskAgainOnlyForADescriptionOlderThanTheBound()
    {
        final long tickStart = 5_000_000_000L;
        assertTrue(SourceCluster.describedSince(tickStart, tickStart));
        assertTrue(SourceCluster.describedSince(tickStart + 1, tickStart));
        assertFalse(SourceCluster.describedSince(tickStart - 1, tickStart));
        assertTrue(SourceCluster.describedSince(Long.MIN_VALUE + 10, Long.MAX_VALUE - 10), "after the wrap");
        assertFalse(SourceCluster.describedSince(Long.MAX_VALUE - 10, Long.MIN_VALUE + 10), "before the wrap");
    }
}

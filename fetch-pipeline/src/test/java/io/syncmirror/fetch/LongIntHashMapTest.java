package io.syncmirror.fetch;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class LongIntHashMapTest
{
    @Test
    void agreesWithHashMapUnderRandomPutsAndRemoves()
    {
        for (long seed = 1; seed <= 5; seed++)
        {
            final SplittableRandom random = new SplittableRandom(seed);
            final LongIntHashMap map = new LongIntHashMap(4);
            final Map<Long, Integer> model = new HashMap<>();
            for (int i = 0; i < 50_000; i++)
            {
                // A narrow key range forces long probe runs and many deletions inside them.
                final long key = LongIntHashMap.key(random.nextInt(8), random.nextInt(-64, 64));
                if (random.nextInt(3) == 0)
                {
                    final Integer expected = model.remove(key);
                    assertEquals(expected == null ? LongIntHashMap.MISSING : expected, map.remove(key), "seed " + seed);
                }
                else
                {
                    final int value = random.nextInt(1_000_000);
                    final Integer expected = model.put(key, value);
                    assertEquals(expected == null ? LongIntHashMap.MISSING : expected, map.put(key, value), "seed " + seed);
                }
                assertEquals(model.size(), map.size());
            }
            for (final Map.Entry<Long, Integer> entry : model.entrySet())
            {
                assertEquals(entry.getValue(), map.get(entry.getKey()));
            }
        }
    }
}

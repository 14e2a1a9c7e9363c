package io.syncmirror.hwgate;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;

import io.syncmirror.protocol.MirrorError;
import io.syncmirror.offheap.PartitionTable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Seeded randomized comparison of the purgatory (rings, wait cells, countdowns, timing wheel, recycling) with a
 * reference model that keeps plain lists and recomputes everything from scratch at every step. A failure
 * names its seed and step; rerun that seed to reproduce it.
 */
class PurgatoryModelTest
{
    private static final int SLOTS = 4;
    private static final int MIRRORS = 2;
    private static final int RING = 4;
    private static final int MAX_REQUESTS = 12;
    private static final int MAX_WAITS = 24;

    static long[] seeds()
    {
        final long[] seeds = new long[40];
        for (int i = 0; i < seeds.length; i++)
        {
            seeds[i] = 0x5EED_0000L + i;
        }
        return seeds;
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void shouldMatchTheReferenceModel(final long seed)
    {
        new Run(seed).run(3000);
    }

    /** One wait of the model: a request's partition. */
    private static final class Wait
    {
        final long cookie;
        final int slot;
        final long required;
        int outcome = AckOutcome.PENDING;

        Wait(final long cookie, final int slot, final long required)
        {
            this.cookie = cookie;
            this.slot = slot;
            this.required = required;
        }
    }

    private static final class Run
    {
        final long seed;
        final Random random;
        final PartitionTable table;
        final HighWatermarkGate gate;
        final DelayedProducePurgatory purgatory;
        final Map<Long, List<Integer>> delivered = new HashMap<>();
        final RequestShard shard;

        // the model
        final long[][] localLeo = new long[SLOTS][3];
        final int[] localIsr = new int[SLOTS];
        final int[] localMin = new int[SLOTS];
        final int[] registered = new int[SLOTS];
        final long[][][] mirrorLeo = new long[SLOTS][MIRRORS][3];
        final int[][] mirrorIsr = new int[SLOTS][MIRRORS];
        final int[][] mirrorMin = new int[SLOTS][MIRRORS];
        final long[] hw = new long[SLOTS];
        final List<ArrayDeque<Wait>> fifo = new ArrayList<>();
        final Map<Long, List<Wait>> requests = new HashMap<>();
        final Map<Long, Long> deadlines = new HashMap<>();
        final Map<Long, List<Integer>> expected = new HashMap<>();
        long now = 10_000;
        long nextCookie;
        int step;

        Run(final long seed)
        {
            this.seed = seed;
            this.random = new Random(seed);
            // Even seeds keep the FIFOs in the partition rows' extension, odd seeds in a buffer of their own.
            this.table = new PartitionTable(SLOTS, 3, MIRRORS, 3, seed % 2 == 0 ? WaiterRings.bytesFor(RING) : 0);
            this.gate = new HighWatermarkGate(table);
            this.purgatory = new DelayedProducePurgatory(gate, RING, 1);
            this.shard = purgatory.newShard(MAX_REQUESTS, MAX_WAITS, this::onComplete, OwnerWakeup.NONE, now);
            for (int s = 0; s < SLOTS; s++)
            {
                fifo.add(new ArrayDeque<>());
                localIsr[s] = 0b111;
                localMin[s] = 2;
                table.initSlot(s, 0, 0b111, 2);
            }
        }

        void onComplete(final RequestShard shard, final int request, final long cookie)
        {
            final List<Integer> outcomes = new ArrayList<>();
            for (int cell = shard.firstCell(request); cell != RequestShard.NO_CELL; cell = shard.nextCell(cell))
            {
                outcomes.add(shard.cellOutcome(cell));
            }
            delivered.put(cookie, outcomes);
        }

        void run(final int steps)
        {
            for (step = 0; step < steps; step++)
            {
                final int slot = random.nextInt(SLOTS);
                switch (random.nextInt(10))
                {
                    case 0, 1, 2 -> produce();
                    case 3, 4 -> follower(slot);
                    case 5, 6 -> mirrorReport(slot);
                    case 7 -> membership(slot);
                    default -> tick();
                }
                for (int s = 0; s < SLOTS; s++)
                {
                    assertEquals(hw[s], table.highWatermark(s), at("HW of slot " + s));
                }
            }
            now += 1_000_000;
            tick();
        }

        String at(final String what)
        {
            return what + " (seed " + seed + ", step " + step + ")";
        }

        // ---------------------------------------------------------------------------------------------------
        // Events, applied to both.
        // ---------------------------------------------------------------------------------------------------

        void produce()
        {
            final int waits = 1 + random.nextInt(3);
            final long cookie = nextCookie++;
            final long deadline = now + 1 + random.nextInt(200);
            final int request = shard.begin(cookie, waits, deadline);
            final int cellsInUse = requests.values().stream().mapToInt(List::size).sum();
            if (requests.size() == MAX_REQUESTS || cellsInUse + waits > MAX_WAITS)
            {
                assertEquals(RequestShard.NO_REQUEST, request, at("refusal"));
                return;
            }
            assertEquals(true, request >= 0, at("admission"));
            final List<Wait> modelWaits = new ArrayList<>();
            requests.put(cookie, modelWaits);
            deadlines.put(cookie, deadline);
            for (int i = 0; i < waits; i++)
            {
                final int slot = random.nextInt(SLOTS);
                final long leo = localLeo[slot][0] + 1 + random.nextInt(3);
                purgatory.onLocalLeo(slot, 0, leo);
                localLeo[slot][0] = leo;
                modelAdvance(slot);
                final Wait wait = new Wait(cookie, slot, leo);
                modelWaits.add(wait);
                shard.watch(request, slot, leo);
                modelWatch(wait);
            }
        }

        void follower(final int slot)
        {
            final int replica = 1 + random.nextInt(2);
            final long leo = Math.min(localLeo[slot][0], localLeo[slot][replica] + random.nextInt(4));
            purgatory.onLocalLeo(slot, replica, leo);
            localLeo[slot][replica] = leo;
            modelAdvance(slot);
        }

        void mirrorReport(final int slot)
        {
            final int mirror = random.nextInt(MIRRORS);
            final int replica = random.nextInt(3);
            final long leo = Math.min(localLeo[slot][0], mirrorLeo[slot][mirror][replica] + random.nextInt(4));
            purgatory.onMirrorLeo(slot, mirror, replica, leo);
            mirrorLeo[slot][mirror][replica] = leo;
            modelAdvance(slot);
        }

        void membership(final int slot)
        {
            switch (random.nextInt(4))
            {
                case 0 ->
                {
                    localIsr[slot] = 1 | (random.nextInt(4) << 1);
                    localMin[slot] = 1 + random.nextInt(3);
                    table.localIsr(slot, localIsr[slot], localMin[slot]);
                }
                case 1 ->
                {
                    registered[slot] = random.nextInt(1 << MIRRORS);
                    table.registeredMirrors(slot, registered[slot]);
                }
                default ->
                {
                    final int mirror = random.nextInt(MIRRORS);
                    mirrorIsr[slot][mirror] = random.nextInt(8);
                    mirrorMin[slot][mirror] = 1 + random.nextInt(3);
                    table.mirrorIsr(slot, mirror, mirrorIsr[slot][mirror], mirrorMin[slot][mirror]);
                }
            }
            purgatory.onMembershipChanged(slot);
            final int underMin = modelRemoteUnderMin(slot);
            if (underMin >= 0)
            {
                modelFailAll(slot, AckOutcome.of(MirrorError.NOT_ENOUGH_REMOTE_REPLICAS_AFTER_APPEND, underMin));
            }
            else
            {
                modelAdvance(slot);
                modelCompleteUpTo(slot);
            }
        }

        void tick()
        {
            now += random.nextInt(60);
            for (final Map.Entry<Long, Long> deadline : deadlines.entrySet())
            {
                if (deadline.getValue() <= now)
                {
                    for (final Wait wait : requests.get(deadline.getKey()))
                    {
                        if (wait.outcome == AckOutcome.PENDING)
                        {
                            wait.outcome = modelExpiryOutcome(wait.slot, wait.required);
                        }
                    }
                }
            }
            modelCollectFinished();
            shard.poll(now);
            assertEquals(expected, delivered, at("deliveries"));
            expected.clear();
            delivered.clear();
        }

        // ---------------------------------------------------------------------------------------------------
        // The reference model.
        // ---------------------------------------------------------------------------------------------------

        void modelWatch(final Wait wait)
        {
            final ArrayDeque<Wait> ring = fifo.get(wait.slot);
            if (ring.size() == RING)
            {
                while (!ring.isEmpty() && ring.peekFirst().outcome != AckOutcome.PENDING)
                {
                    ring.pollFirst();
                }
            }
            if (ring.size() == RING)
            {
                wait.outcome = modelExpiryOutcome(wait.slot, wait.required);
                return;
            }
            ring.addLast(wait);
            final int underMin = modelRemoteUnderMin(wait.slot);
            if (underMin >= 0)
            {
                modelFailAll(wait.slot, AckOutcome.of(MirrorError.NOT_ENOUGH_REMOTE_REPLICAS_AFTER_APPEND, underMin));
            }
            else if (hw[wait.slot] >= wait.required)
            {
                modelCompleteUpTo(wait.slot);
            }
        }

        void modelAdvance(final int slot)
        {
            final long candidate = modelCandidate(slot);
            if (candidate > hw[slot])
            {
                hw[slot] = candidate;
                modelCompleteUpTo(slot);
            }
        }

        void modelCompleteUpTo(final int slot)
        {
            final ArrayDeque<Wait> ring = fifo.get(slot);
            while (!ring.isEmpty() && ring.peekFirst().required <= hw[slot])
            {
                final Wait wait = ring.pollFirst();
                if (wait.outcome == AckOutcome.PENDING)
                {
                    wait.outcome = modelAckTimeOutcome(slot);
                }
            }
        }

        void modelFailAll(final int slot, final int outcome)
        {
            final ArrayDeque<Wait> ring = fifo.get(slot);
            while (!ring.isEmpty())
            {
                final Wait wait = ring.pollFirst();
                if (wait.outcome == AckOutcome.PENDING)
                {
                    wait.outcome = outcome;
                }
            }
        }

        void modelCollectFinished()
        {
            for (final Iterator<Map.Entry<Long, List<Wait>>> it = requests.entrySet().iterator(); it.hasNext(); )
            {
                final Map.Entry<Long, List<Wait>> request = it.next();
                if (request.getValue().stream().allMatch(w -> w.outcome != AckOutcome.PENDING))
                {
                    expected.put(request.getKey(), request.getValue().stream().map(w -> w.outcome).toList());
                    deadlines.remove(request.getKey());
                    it.remove();
                }
            }
        }

        long modelCandidate(final int slot)
        {
            if (Integer.bitCount(localIsr[slot]) < Math.max(1, localMin[slot]))
            {
                return -1;
            }
            long min = Long.MAX_VALUE;
            for (int r = 0; r < 3; r++)
            {
                if ((localIsr[slot] & (1 << r)) != 0)
                {
                    min = Math.min(min, localLeo[slot][r]);
                }
            }
            for (int m = 0; m < MIRRORS; m++)
            {
                if ((registered[slot] & (1 << m)) == 0)
                {
                    continue;
                }
                if (Integer.bitCount(mirrorIsr[slot][m]) < Math.max(1, mirrorMin[slot][m]))
                {
                    return -1;
                }
                min = Math.min(min, modelMirrorMin(slot, m));
            }
            return min;
        }

        long modelMirrorMin(final int slot, final int mirror)
        {
            if (mirrorIsr[slot][mirror] == 0)
            {
                return 0;
            }
            long min = Long.MAX_VALUE;
            for (int r = 0; r < 3; r++)
            {
                if ((mirrorIsr[slot][mirror] & (1 << r)) != 0)
                {
                    min = Math.min(min, mirrorLeo[slot][mirror][r]);
                }
            }
            return min;
        }

        int modelRemoteUnderMin(final int slot)
        {
            for (int m = 0; m < MIRRORS; m++)
            {
                if ((registered[slot] & (1 << m)) != 0 && mirrorIsr[slot][m] != 0 &&
                    Integer.bitCount(mirrorIsr[slot][m]) < mirrorMin[slot][m])
                {
                    return m;
                }
            }
            return -1;
        }

        int modelAckTimeOutcome(final int slot)
        {
            if (Integer.bitCount(localIsr[slot]) < localMin[slot])
            {
                return AckOutcome.of(MirrorError.NOT_ENOUGH_REPLICAS_AFTER_APPEND);
            }
            final int underMin = modelRemoteUnderMin(slot);
            return underMin < 0 ? 0 : AckOutcome.of(MirrorError.NOT_ENOUGH_REMOTE_REPLICAS_AFTER_APPEND, underMin);
        }

        int modelExpiryOutcome(final int slot, final long required)
        {
            if (hw[slot] >= required)
            {
                return modelAckTimeOutcome(slot);
            }
            final int underMin = modelRemoteUnderMin(slot);
            if (underMin >= 0)
            {
                return AckOutcome.of(MirrorError.NOT_ENOUGH_REMOTE_REPLICAS_AFTER_APPEND, underMin);
            }
            int slowest = -1;
            long slowestLeo = Long.MAX_VALUE;
            for (int m = 0; m < MIRRORS; m++)
            {
                if ((registered[slot] & (1 << m)) != 0 && modelMirrorMin(slot, m) < slowestLeo)
                {
                    slowestLeo = modelMirrorMin(slot, m);
                    slowest = m;
                }
            }
            long localMinLeo = Long.MAX_VALUE;
            for (int r = 0; r < 3; r++)
            {
                if ((localIsr[slot] & (1 << r)) != 0)
                {
                    localMinLeo = Math.min(localMinLeo, localLeo[slot][r]);
                }
            }
            if (slowest >= 0 && slowestLeo < required && slowestLeo <= localMinLeo)
            {
                return AckOutcome.of(MirrorError.MIRROR_SYNC_REPLICATION_TIMEOUT, slowest);
            }
            return AckOutcome.of(MirrorError.REQUEST_TIMED_OUT);
        }
    }
}

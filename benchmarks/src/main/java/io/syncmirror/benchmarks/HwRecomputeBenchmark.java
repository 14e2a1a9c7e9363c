package io.syncmirror.benchmarks;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import io.syncmirror.hwgate.HighWatermarkGate;
import io.syncmirror.offheap.PartitionRowDescriptor;
import io.syncmirror.offheap.PartitionTable;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * JMH benchmark of one LEO report and the sync high-watermark recompute it triggers at a pseudo-random partition
 * slot, beside a baseline that loads and stores one long at the same random rows of a plain array as large as
 * the partition table. Per JMH thread state, so every cell has a single writer as in production.
 *
 * <p>Why this baseline: at 100k partitions the table (4.8 to 11 MB) no longer fits the L2 cache and a recompute
 * is dominated by the miss on the slot's row; the baseline takes the same miss and does nothing else, so the
 * ratio isolates what the predicate, its acquire loads and its CAS add. At 1k partitions everything is cache
 * resident and the absolute figure is the one to watch.
 *
 * <p>Every slot has {@link #LOCAL_REPLICAS} local replicas (ISR all of them, min.insync.replicas
 * {@link #MIN_ISR}) and {@code mirrors} mirror links, each registered on every slot and reporting an ISR of
 * {@link #REPLICAS_PER_MIRROR} replicas with MinISR {@link #MIN_ISR}, so the predicate reads
 * {@code 3 + 3 * mirrors} LEO cells. Each operation bumps the next cell of a round robin over those cells by
 * one at a random slot: LEOs only grow, and the HW advances (a CAS) whenever the bumped cell was the slot's
 * only minimum, otherwise the recompute ends at the comparison.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 3, jvmArgsAppend = { BenchmarkFlags.ADD_EXPORTS, BenchmarkFlags.DISABLE_BOUNDS_CHECKS })
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Thread)
public class HwRecomputeBenchmark
{
    /** Local replicas per partition, the leader included. */
    public static final int LOCAL_REPLICAS = 3;
    /** Replicas each mirror link reports per partition. */
    public static final int REPLICAS_PER_MIRROR = 3;
    /** min.insync.replicas locally and the reported MinISR of every mirror. */
    public static final int MIN_ISR = 2;

    @Param({ "1000", "100000" })
    public int partitions;

    @Param({ "0", "1", "2" })
    public int mirrors;

    /**
     * Mirror link blocks in every row beyond the registered {@code mirrors}: a broker's
     * {@code syncmirror.sync.mirror.links} (plus the hold link) sizes the row whatever is registered.
     */
    @Param({ "0" })
    public int unregisteredLinks;

    /** LEO reports per batch: a follower's or mirror's fetch response over a large session carries dozens. */
    public static final int BATCH = 64;

    private PartitionTable table;
    private HighWatermarkGate gate;
    private int[] slots;
    private int slotMask;
    private int cursor;
    private int[] cellMirror;
    private int[] cellReplica;
    private int nextCell;
    private long[] memory;
    private int longsPerRow;
    private int chase;
    /** Row offset of each cell of the round robin, for the batched reports. */
    private int[] cellOffsets;
    private final int[] batchSlots = new int[BATCH];
    private final int[] batchCells = new int[BATCH];
    private final long[] batchLeos = new long[BATCH];
    private final long[] advanced = new long[BATCH];
    /** The LEO the next report of the batched forms stores: above every cell's, without reading the row first. */
    private long nextLeo = 1;

    /** Bytes of one partition row with {@code mirrors} mirror links, as this benchmark lays it out. */
    public static int rowBytes(final int mirrors)
    {
        return new PartitionRowDescriptor(LOCAL_REPLICAS, mirrors, REPLICAS_PER_MIRROR).rowBytes();
    }

    @Setup
    public void setUp()
    {
        table = new PartitionTable(partitions, LOCAL_REPLICAS, mirrors + unregisteredLinks, REPLICAS_PER_MIRROR);
        gate = new HighWatermarkGate(table);
        final int localIsr = (1 << LOCAL_REPLICAS) - 1;
        final int mirrorIsr = (1 << REPLICAS_PER_MIRROR) - 1;
        for (int slot = 0; slot < partitions; slot++)
        {
            table.initSlot(slot, 0L, localIsr, MIN_ISR);
            for (int mirror = 0; mirror < mirrors; mirror++)
            {
                table.mirrorIsr(slot, mirror, mirrorIsr, MIN_ISR);
            }
            table.registeredMirrors(slot, (1 << mirrors) - 1);
        }

        final int cells = LOCAL_REPLICAS + mirrors * REPLICAS_PER_MIRROR;
        cellMirror = new int[cells];
        cellReplica = new int[cells];
        for (int cell = 0; cell < cells; cell++)
        {
            final boolean local = cell < LOCAL_REPLICAS;
            cellMirror[cell] = local ? -1 : (cell - LOCAL_REPLICAS) / REPLICAS_PER_MIRROR;
            cellReplica[cell] = local ? cell : (cell - LOCAL_REPLICAS) % REPLICAS_PER_MIRROR;
        }

        cellOffsets = new int[cells];
        for (int cell = 0; cell < cells; cell++)
        {
            cellOffsets[cell] = cellMirror[cell] < 0 ? table.localLeoCell(cellReplica[cell]) :
                table.mirrorLeoCell(cellMirror[cell], cellReplica[cell]);
        }

        slots = SlotSequences.randomSlots(partitions, SlotSequences.LENGTH, SlotSequences.SEED);
        slotMask = SlotSequences.LENGTH - 1;
        longsPerRow = table.layout().rowBytes() / Long.BYTES;
        memory = new long[partitions * longsPerRow];
        // Sattolo's shuffle: one cycle through every row, so the chase visits them all in a random order.
        final int[] order = new int[partitions];
        for (int i = 0; i < partitions; i++)
        {
            order[i] = i;
        }
        final SplittableRandom random = new SplittableRandom(SlotSequences.SEED);
        for (int i = partitions - 1; i > 0; i--)
        {
            final int j = random.nextInt(i);
            final int swap = order[i];
            order[i] = order[j];
            order[j] = swap;
        }
        for (int i = 0; i < partitions; i++)
        {
            memory[order[i] * longsPerRow] = order[(i + 1) % partitions];
        }
    }

    /** The table under test, for tests of this benchmark. */
    PartitionTable table()
    {
        return table;
    }

    /**
     * One LEO report (a release store into the replica's own cell) and the HW recompute over the slot's row.
     *
     * @return the new HW, or {@link HighWatermarkGate#NO_ADVANCE}.
     */
    @Benchmark
    public long hwRecompute()
    {
        final int slot = slots[cursor++ & slotMask];
        final int cell = nextCell;
        nextCell = cell + 1 == cellMirror.length ? 0 : cell + 1;
        final int mirror = cellMirror[cell];
        final int replica = cellReplica[cell];
        if (mirror < 0)
        {
            table.localLeo(slot, replica, table.localLeo(slot, replica) + 1);
        }
        else
        {
            table.mirrorLeo(slot, mirror, replica, table.mirrorLeo(slot, mirror, replica) + 1);
        }
        return gate.maybeAdvance(slot);
    }

    /**
     * The reports of {@link #hwRecomputeBatch}, one at a time: the same cells and LEO values (stored without reading
     * the cell first, as a fetch response's LEO arrives), each a volatile store and its recompute.
     */
    @Benchmark
    public long hwRecomputeOne()
    {
        final int slot = slots[cursor++ & slotMask];
        final int cell = nextCell;
        nextCell = cell + 1 == cellOffsets.length ? 0 : cell + 1;
        final int mirror = cellMirror[cell];
        if (mirror < 0)
        {
            table.localLeo(slot, cellReplica[cell], nextLeo++);
        }
        else
        {
            table.mirrorLeo(slot, mirror, cellReplica[cell], nextLeo++);
        }
        return gate.maybeAdvance(slot);
    }

    /**
     * {@link #BATCH} LEO reports at random slots as one fetch response's: a touch pass, release stores, one fence,
     * then each slot's recompute ({@link HighWatermarkGate#onLeos}). Reported per report.
     */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long hwRecomputeBatch()
    {
        final int[] cellOffsets = this.cellOffsets;
        int cell = nextCell;
        long leo = nextLeo;
        for (int i = 0; i < BATCH; i++)
        {
            batchSlots[i] = slots[cursor++ & slotMask];
            batchCells[i] = cellOffsets[cell];
            batchLeos[i] = leo++;
            cell = cell + 1 == cellOffsets.length ? 0 : cell + 1;
        }
        nextCell = cell;
        nextLeo = leo;
        return gate.onLeos(batchSlots, batchCells, batchLeos, BATCH, advanced) + advanced[BATCH - 1];
    }

    /**
     * The latency floor: a pointer chase over the same array, each row holding the index of the next row of one
     * random cycle through all of them, so that each load waits for the one before, as an update whose fence
     * and CAS keep the next operation's miss from overlapping this one's.
     */
    @Benchmark
    public long dependentLoadBaseline()
    {
        final int next = (int)memory[chase * longsPerRow];
        chase = next;
        return next;
    }

    /** The memory-bound floor: one load and one store at the first long of the same random row. */
    @Benchmark
    public long randomLoadBaseline()
    {
        final int index = slots[cursor++ & slotMask] * longsPerRow;
        final long value = memory[index] + 1;
        memory[index] = value;
        return value;
    }
}

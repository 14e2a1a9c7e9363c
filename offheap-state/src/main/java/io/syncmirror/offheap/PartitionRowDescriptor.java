package io.syncmirror.offheap;

/**
 * Layout of one partition slot's row in a {@link PartitionTable}: every input of the sync high-watermark
 * predicate for one partition, in one contiguous row, so that a recompute touches one or two cache lines.
 * Immutable and thread-safe.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |  HW word: high watermark (52 bits) | membership version (12)  |  0   CAS, any thread
 *  +-------------------------------+-------------------------------+
 *  |        local ISR mask         |   local min.insync.replicas   |  8   one 64-bit store, control writer
 *  +-------------------------------+-------------------------------+
 *  |    registered mirror mask     |           reserved            |  16  control writer
 *  +-------------------------------+-------------------------------+
 *  |                     local replica 0 LEO                       |  24  one writer per cell
 *  |                              ...                              |
 *  |                   local replica L-1 LEO                       |
 *  +-------------------------------+-------------------------------+
 *  |  mirror 0 reported ISR mask   |   mirror 0 reported MinISR    |  one 64-bit store, mirror link's writer
 *  |        mirror 0 min LEO: lowest LEO over its reported ISR     |  mirror link's writer, after each change
 *  |                mirror 0 replica 0 .. R-1 LEO                  |  mirror link's writer
 *  +-------------------------------+-------------------------------+
 *  |                     ... up to mirror M-1                      |
 *  +---------------------------------------------------------------+
 *  |  extension: E bytes that a higher layer lays out (the purgatory  |  8-byte aligned
 *  |  keeps its per-slot FIFO of waiters here)                     |
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * <p>The extension exists so that state touched in the same operation as the row sits next to it: at 100k
 * partitions a row is a cache miss, and a second structure indexed by slot would be a second one.
 *
 * <p>The HW shares its word with a membership version, used as a sequence lock by membership changes (ISR,
 * min ISR, registered mirrors, a mirror's reported ISR): a change makes the version odd with a CAS, writes its
 * cells, and makes it even again. No HW is published while the version is odd (a recompute CASes the whole
 * word, so one that read an older version or an older membership fails and re-reads), so the HW is frozen for
 * the few stores a change takes, and a change can check a joining member's LEO against a HW that cannot move
 * under it: the lock-free counterpart of Kafka's leaderIsrUpdateLock. LEO writers never wait for a change; see
 * HighWatermarkGate. 52 bits of offset is 4.5e15 records: 14 years at ten million records a second on one
 * partition.
 *
 * <p>Mask and min-ISR share one 64-bit word so that no reader sees a mask from one update and a minimum from
 * another.
 *
 * <p>A mirror block's min LEO is what the HW predicate needs of the mirror: the lowest LEO over its reported ISR
 * (0 while the ISR is empty). Its writer keeps it with every change of the block's LEOs or ISR, so a recompute,
 * which every LEO report of the partition runs, reads one cell per mirror instead of its whole ISR's.
 */
public final class PartitionRowDescriptor
{
    /** Offset of the HW word: {@code highWatermark << VERSION_BITS | membershipVersion}. */
    public static final int HW_WORD_OFFSET = 0;
    /** Offset of the local ISR word: mask in the low 32 bits, min.insync.replicas in the high 32 bits. */
    public static final int LOCAL_ISR_OFFSET = 8;
    /** Offset of the registered-mirror mask (int): bit m set when mirror link m gates this partition. */
    public static final int REGISTERED_MIRRORS_OFFSET = 16;
    /** Offset of the first local replica's LEO cell. */
    public static final int LOCAL_LEO_OFFSET = 24;

    /** Within a mirror block: the reported ISR word, mask low 32 bits, reported MinISR high 32 bits. */
    public static final int MIRROR_ISR_OFFSET = 0;
    /** Within a mirror block: the lowest reported LEO over the reported ISR (0 for an empty ISR). */
    public static final int MIRROR_MIN_LEO_OFFSET = 8;
    /** Within a mirror block: the first reported replica LEO cell. */
    public static final int MIRROR_LEO_OFFSET = 16;

    /** Low bits of the HW word that hold the membership version. */
    public static final int VERSION_BITS = 12;
    /** Mask of the membership version in the HW word. */
    public static final long VERSION_MASK = (1L << VERSION_BITS) - 1;
    /** Highest offset a HW word can hold. */
    public static final long MAX_OFFSET = (1L << (Long.SIZE - VERSION_BITS)) - 1;

    /** Most replicas (local, or per mirror) and mirror links a row can describe: one bit each in an int mask. */
    public static final int MAX_MEMBERS = Integer.SIZE;

    private final int localReplicas;
    private final int mirrorLinks;
    private final int replicasPerMirror;
    private final int mirrorBlockBytes;
    private final int firstMirrorOffset;
    private final int extensionOffset;
    private final int extensionBytes;
    private final int rowBytes;

    /**
     * @param localReplicas     LEO cells for the local replicas (the leader included), at most 32.
     * @param mirrorLinks       mirror links a partition can be registered to, at most 32.
     * @param replicasPerMirror reported replica LEO cells per mirror link, at most 32.
     */
    public PartitionRowDescriptor(final int localReplicas, final int mirrorLinks, final int replicasPerMirror)
    {
        this(localReplicas, mirrorLinks, replicasPerMirror, 0);
    }

    /**
     * @param localReplicas     LEO cells for the local replicas (the leader included), at most 32.
     * @param mirrorLinks       mirror links a partition can be registered to, at most 32.
     * @param replicasPerMirror reported replica LEO cells per mirror link, at most 32.
     * @param extensionBytes    bytes after the predicate's cells for a higher layer's per-slot state.
     */
    public PartitionRowDescriptor(
        final int localReplicas, final int mirrorLinks, final int replicasPerMirror, final int extensionBytes)
    {
        requireRange("extensionBytes", extensionBytes, 0, 1 << 20);
        requireRange("localReplicas", localReplicas, 1, MAX_MEMBERS);
        requireRange("mirrorLinks", mirrorLinks, 0, MAX_MEMBERS);
        requireRange("replicasPerMirror", replicasPerMirror, mirrorLinks == 0 ? 0 : 1, MAX_MEMBERS);
        this.localReplicas = localReplicas;
        this.mirrorLinks = mirrorLinks;
        this.replicasPerMirror = replicasPerMirror;
        this.mirrorBlockBytes = mirrorLinks == 0 ? 0 : MIRROR_LEO_OFFSET + Long.BYTES * replicasPerMirror;
        this.firstMirrorOffset = LOCAL_LEO_OFFSET + Long.BYTES * localReplicas;
        this.extensionOffset = firstMirrorOffset + mirrorBlockBytes * mirrorLinks;
        this.extensionBytes = (extensionBytes + Long.BYTES - 1) & -Long.BYTES;
        this.rowBytes = extensionOffset + this.extensionBytes;
    }

    public int localReplicas()
    {
        return localReplicas;
    }

    public int mirrorLinks()
    {
        return mirrorLinks;
    }

    public int replicasPerMirror()
    {
        return replicasPerMirror;
    }

    /** Bytes of one row: 80 for 3 local replicas and one mirror of 3, 112 with two such mirrors, plus the extension. */
    public int rowBytes()
    {
        return rowBytes;
    }

    /** Bytes of the cells the HW predicate reads: the row without its extension. */
    public int predicateBytes()
    {
        return extensionOffset;
    }

    /** Offset of the extension within a row. */
    public int extensionOffset()
    {
        return extensionOffset;
    }

    /** Bytes of the extension, rounded up to a multiple of 8. */
    public int extensionBytes()
    {
        return extensionBytes;
    }

    /** Offset of local replica {@code replica}'s LEO cell within a row. */
    public int localLeoOffset(final int replica)
    {
        return LOCAL_LEO_OFFSET + (replica << 3);
    }

    /** Bytes of one mirror link's block: its ISR word and its replicas' LEO cells. */
    public int mirrorBlockBytes()
    {
        return mirrorBlockBytes;
    }

    /** Offset of mirror link {@code mirror}'s block within a row. */
    public int mirrorBlockOffset(final int mirror)
    {
        return firstMirrorOffset + mirror * mirrorBlockBytes;
    }

    /**
     * The mirror link whose block holds the cell at {@code cellOffset} within a row, or -1 for a cell before the
     * mirror blocks (a local replica's LEO).
     */
    public int mirrorOfCell(final int cellOffset)
    {
        return cellOffset < firstMirrorOffset || mirrorBlockBytes == 0 ? -1 :
            (cellOffset - firstMirrorOffset) / mirrorBlockBytes;
    }

    /** Offset of the reported LEO cell of replica {@code replica} of mirror link {@code mirror} within a row. */
    public int mirrorLeoOffset(final int mirror, final int replica)
    {
        return mirrorBlockOffset(mirror) + MIRROR_LEO_OFFSET + (replica << 3);
    }

    /** Packs a high watermark and a membership version into a HW word. */
    public static long hwWord(final long highWatermark, final long membershipVersion)
    {
        return (highWatermark << VERSION_BITS) | (membershipVersion & VERSION_MASK);
    }

    /** The high watermark held in a HW word. */
    public static long highWatermark(final long hwWord)
    {
        return hwWord >>> VERSION_BITS;
    }

    /** Whether a membership change is open (the version is odd): no HW may be published from this word. */
    public static boolean membershipChangeOpen(final long hwWord)
    {
        return (hwWord & 1) != 0;
    }

    /** The membership version held in a HW word. */
    public static int membershipVersion(final long hwWord)
    {
        return (int)(hwWord & VERSION_MASK);
    }

    /** Packs an ISR mask and its minimum size into one ISR word. */
    public static long isrWord(final int isrMask, final int minIsr)
    {
        return ((long)minIsr << 32) | (isrMask & 0xFFFF_FFFFL);
    }

    /** The member mask held in an ISR word. */
    public static int isrMask(final long isrWord)
    {
        return (int)isrWord;
    }

    /** The minimum ISR size held in an ISR word. */
    public static int minIsr(final long isrWord)
    {
        return (int)(isrWord >>> 32);
    }

    private static void requireRange(final String name, final int value, final int min, final int max)
    {
        if (value < min || value > max)
        {
            throw new IllegalArgumentException(name + " must be in [" + min + ", " + max + "]: " + value);
        }
    }

    @Override
    public String toString()
    {
        return "PartitionRowDescriptor{localReplicas=" + localReplicas + ", mirrorLinks=" + mirrorLinks +
            ", replicasPerMirror=" + replicasPerMirror + ", extensionBytes=" + extensionBytes + ", rowBytes=" + rowBytes +
            '}';
    }
}

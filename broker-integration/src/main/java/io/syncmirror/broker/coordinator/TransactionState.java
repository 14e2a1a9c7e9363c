package io.syncmirror.broker.coordinator;

/**
 * The states of one transactional id, with the ids Kafka's transaction log uses for them.
 * PrepareEpochFence is in-memory only: it is never written to the log.
 */
public enum TransactionState
{
    EMPTY((byte) 0),
    ONGOING((byte) 1),
    PREPARE_COMMIT((byte) 2),
    PREPARE_ABORT((byte) 3),
    COMPLETE_COMMIT((byte) 4),
    COMPLETE_ABORT((byte) 5),
    DEAD((byte) 6),
    PREPARE_EPOCH_FENCE((byte) 7);

    private final byte id;

    TransactionState(final byte id)
    {
        this.id = id;
    }

    public byte id()
    {
        return id;
    }

    public static TransactionState forId(final byte id)
    {
        for (final TransactionState state : values())
        {
            if (state.id == id)
            {
                return state;
            }
        }
        throw new IllegalArgumentException("unknown transaction state id " + id);
    }

    /** Whether markers are owed: the decision is logged but not all markers are written yet. */
    public boolean isPrepare()
    {
        return this == PREPARE_COMMIT || this == PREPARE_ABORT;
    }

    /** Whether a new transaction (or a new epoch) may start from here. */
    public boolean isCompleteOrEmpty()
    {
        return this == EMPTY || this == COMPLETE_COMMIT || this == COMPLETE_ABORT;
    }
}

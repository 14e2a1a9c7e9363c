package io.syncmirror.broker.controller;

import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Records;

/**
 * The controller's ordered, durable metadata log ({@code __cluster_metadata-0}). There is one controller and the
 * log is not replicated, so an append is committed once it is durable: the HW is the log end offset after each
 * append.
 *
 * <p>Thread-safety: {@link #append} is called by the controller's single event thread only; {@link #read} and
 * the offset getters may be called from any thread.
 */
public interface MetadataLog extends AutoCloseable
{
    /**
     * Appends one batch, assigning its offsets from the log end (the base offset in the batch is overwritten),
     * and makes it durable before returning. Returns the offset of the batch's last record.
     */
    long append(MemoryRecords batch);

    /** Batches from the one holding {@code offset}, up to about {@code maxBytes} (at least one batch). */
    Records read(long offset, int maxBytes);

    /** The offset the next append gets. */
    long endOffset();

    /** The committed end: every offset below it is durable and readable by brokers. */
    long highWatermark();

    @Override
    void close();
}

package io.syncmirror.bench.e2e;

import java.util.function.LongConsumer;

/**
 * Where the benchmark takes the mirror link's round trips from: something that, once started, hands each round
 * trip it sees, in nanoseconds, to a sink until it is closed. Implementations say their own thread-safety; the sink
 * they are given must accept calls from any thread.
 */
public interface LinkRoundTripSource extends AutoCloseable
{
    /** Starts reporting round trips to {@code nanosSink}; called once. */
    void start(LongConsumer nanosSink);

    /** One line saying what is measured, printed beside the figures. */
    String describe();

    /** Stops reporting; no call reaches the sink after it returns. Idempotent. */
    @Override
    void close();
}

package io.syncmirror.fetch;

/** Where a partition of a {@link FetcherEngine} stands. */
public enum PartitionFetchState
{
    /** In the next fetch request. */
    FETCHING,
    /** The leader reported a diverging epoch or an out-of-range offset and the target has not yet said where to resume. */
    TRUNCATING,
    /** Out of fetch requests until its backoff after a partition error ends. */
    DELAYED
}

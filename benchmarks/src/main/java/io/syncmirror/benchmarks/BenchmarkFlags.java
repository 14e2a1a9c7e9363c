package io.syncmirror.benchmarks;

/**
 * The JVM flags every benchmark fork runs with, as compile-time constants for {@code @Fork(jvmArgsAppend)}.
 * Stateless.
 *
 * <p>Agrona's UnsafeBuffer needs jdk.internal.misc exported; its bounds checks are switched off so that the
 * figures measure the hot path as it runs in production, not the checks that guard it in tests.
 */
public final class BenchmarkFlags
{
    /** Lets Agrona reach jdk.internal.misc.Unsafe. */
    public static final String ADD_EXPORTS = "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED";
    /** Switches off Agrona's buffer bounds checks. */
    public static final String DISABLE_BOUNDS_CHECKS = "-Dagrona.disable.bounds.checks=true";

    private BenchmarkFlags()
    {
    }
}

package io.syncmirror.perf.gate;

/** The gate could not run: a build, a process or its results failed. Its message is one line for the user. */
public final class GateException extends Exception
{
    private static final long serialVersionUID = 1L;

    public GateException(final String message)
    {
        super(message);
    }

    public GateException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}

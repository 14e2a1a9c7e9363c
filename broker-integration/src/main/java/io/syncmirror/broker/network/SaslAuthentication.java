package io.syncmirror.broker.network;

import java.net.InetAddress;
import java.util.Optional;

import javax.net.ssl.SSLSession;
import javax.security.sasl.SaslException;
import javax.security.sasl.SaslServer;

import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.SaslAuthenticateRequest;
import org.apache.kafka.common.requests.SaslAuthenticateResponse;
import org.apache.kafka.common.requests.SaslHandshakeRequest;
import org.apache.kafka.common.requests.SaslHandshakeResponse;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * One connection's SASL authentication, the exchange Kafka's {@code SaslServerAuthenticator} runs: an optional
 * ApiVersions, a SaslHandshake naming the mechanism, then SaslAuthenticate requests carrying the mechanism's
 * tokens until Kafka's SASL server is complete; the connection's principal is then built by Kafka's principal
 * builder. Not thread-safe: the connection's event loop owns it.
 *
 * <p>Errors are Kafka's: a mechanism not enabled is UNSUPPORTED_SASL_MECHANISM, a wrong password or proof
 * SASL_AUTHENTICATION_FAILED, a request out of turn ILLEGAL_SASL_STATE; each of these closes the connection once
 * answered, as Kafka's does. On a listener without SASL, and after authentication completed, SaslHandshake and
 * SaslAuthenticate are answered ILLEGAL_SASL_STATE and the connection stays (Kafka's request handler answers
 * them so). Re-authentication ({@code connections.max.reauth.ms}) is not served: the session lifetime sent is 0.
 */
final class SaslAuthentication
{
    /** What to answer, and whether to close the connection once it is sent. */
    record Outcome(AbstractResponse response, boolean close, String reason)
    {
    }

    private enum State
    {
        HANDSHAKE, AUTHENTICATE, COMPLETE, FAILED
    }

    private final ListenerSecurity security;
    private State state;
    private SaslServer server;
    private KafkaPrincipal principal = KafkaPrincipal.ANONYMOUS;

    SaslAuthentication(final ListenerSecurity security)
    {
        this.security = security;
        this.state = security.sasl() == null ? State.COMPLETE : State.HANDSHAKE;
    }

    /** Whether requests other than ApiVersions and the SASL ones may be served. */
    boolean complete()
    {
        return state == State.COMPLETE;
    }

    /** The authenticated principal; ANONYMOUS on a listener without SASL. */
    KafkaPrincipal principal()
    {
        return principal;
    }

    /** The largest frame accepted now: {@code sasl.server.max.receive.size} until authenticated. */
    int maxFrameBytes(final int maxRequestBytes)
    {
        return state == State.COMPLETE ? maxRequestBytes : Math.min(maxRequestBytes, security.sasl().maxReceiveBytes());
    }

    Outcome onHandshake(final SaslHandshakeRequest request)
    {
        if (state != State.HANDSHAKE)
        {
            final boolean midExchange = state != State.COMPLETE;
            return fail(new SaslHandshakeResponse(new SaslHandshakeResponseData()
                .setErrorCode(Errors.ILLEGAL_SASL_STATE.code())), midExchange,
                "SaslHandshake out of turn (" + state + ")");
        }
        final String mechanism = request.data().mechanism();
        final SaslHandshakeResponseData data = new SaslHandshakeResponseData()
            .setMechanisms(security.sasl().enabledMechanisms());
        if (!security.sasl().enables(mechanism))
        {
            return fail(new SaslHandshakeResponse(data.setErrorCode(Errors.UNSUPPORTED_SASL_MECHANISM.code())), true,
                "SASL mechanism " + mechanism + " is not enabled");
        }
        try
        {
            server = security.sasl().newServer(mechanism);
        }
        catch (final SaslException e)
        {
            return fail(new SaslHandshakeResponse(data.setErrorCode(Errors.UNSUPPORTED_SASL_MECHANISM.code())), true,
                e.getMessage());
        }
        state = State.AUTHENTICATE;
        return new Outcome(new SaslHandshakeResponse(data.setErrorCode(Errors.NONE.code())), false, null);
    }

    Outcome onAuthenticate(final SaslAuthenticateRequest request, final InetAddress clientAddress,
        final Optional<SSLSession> sslSession)
    {
        if (state != State.AUTHENTICATE)
        {
            final boolean midExchange = state != State.COMPLETE;
            return fail(new SaslAuthenticateResponse(new SaslAuthenticateResponseData()
                .setErrorCode(Errors.ILLEGAL_SASL_STATE.code()).setErrorMessage(state == State.COMPLETE ?
                    "SaslAuthenticate request received after successful authentication" :
                    "SaslAuthenticate request received before SaslHandshake")), midExchange,
                "SaslAuthenticate out of turn (" + state + ")");
        }
        try
        {
            final byte[] token = server.evaluateResponse(request.data().authBytes());
            if (server.isComplete())
            {
                principal = security.saslPrincipal(server, clientAddress, sslSession);
                state = State.COMPLETE;
            }
            return new Outcome(new SaslAuthenticateResponse(new SaslAuthenticateResponseData()
                .setErrorCode(Errors.NONE.code()).setAuthBytes(token == null ? new byte[0] : token)
                .setSessionLifetimeMs(0)), false, null);
        }
        catch (final SaslAuthenticationException e)
        {
            return authenticationFailed(e.getMessage());
        }
        catch (final SaslException | RuntimeException e)
        {
            return authenticationFailed("Authentication failed during authentication due to invalid credentials "
                + "with SASL mechanism " + server.getMechanismName());
        }
    }

    /** Lets go of the SASL server; the connection is closing. */
    void dispose()
    {
        if (server != null)
        {
            try
            {
                server.dispose();
            }
            catch (final SaslException e)
            {
                // Nothing held that outlives the connection.
            }
            server = null;
        }
    }

    private Outcome authenticationFailed(final String message)
    {
        return fail(new SaslAuthenticateResponse(new SaslAuthenticateResponseData()
            .setErrorCode(Errors.SASL_AUTHENTICATION_FAILED.code()).setErrorMessage(message)), true, message);
    }

    private Outcome fail(final AbstractResponse response, final boolean close, final String reason)
    {
        if (close)
        {
            state = State.FAILED;
        }
        return new Outcome(response, close, reason);
    }
}

package io.syncmirror.broker.network;

import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.message.ApiMessageType;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersionCollection;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;

import io.syncmirror.protocol.KafkaApiExtensions;
import io.syncmirror.protocol.MirrorApiKeys;

/**
 * Builds the socket server's ApiVersions answers and decides which versions of an API it hands to the
 * {@link RequestHandler}. Thread-safe: stateless beyond its (thread-safe) handler and features.
 *
 * <p>An API is advertised when the handler serves it, whatever listener type Kafka files it under: a
 * controller's handler serving BrokerRegistration must advertise it, because kafka-clients' NetworkClient
 * refuses to send an API the peer did not list. The advertised range is the handler's, clamped to what
 * kafka-clients can parse: a version the server cannot parse would only close the connection. The exception is
 * the handler's {@link RequestHandler#maxVersionBeyondKafka}: Fetch up to 20 and Produce up to 14, which the
 * protocol module's codecs parse, are advertised when the handler asks for them (a real 4.4 client still picks
 * its own highest, 18 and 13). ApiVersions and the SASL exchange are the server's own, over every version
 * kafka-clients knows.
 *
 * <p>The lowest version advertised is the one Kafka 4.4's brokers advertise when the handler serves from
 * kafka-clients' oldest: that is kafka-clients' oldest, except Produce, listed from v0 although v0 to v2 have no
 * schema any more (KAFKA-18659: librdkafka turns its compression codecs off unless Produce v0 is listed). A request
 * at such a version still closes its connection, as in Kafka.
 */
final class ApiVersionsResponder
{
    private final RequestHandler handler;
    private final ApiVersionsFeatures features;

    ApiVersionsResponder(final RequestHandler handler, final ApiVersionsFeatures features)
    {
        this.handler = handler;
        this.features = features;
    }

    /** The lowest version of {@code key} answered by the handler, or -1 when it is not served. */
    short minServed(final ApiKeys key)
    {
        if (serverOwn(key))
        {
            return key.oldestVersion();
        }
        final short max = maxServed(key);
        if (max < 0)
        {
            return -1;
        }
        final short handlerMin = handler.minVersion(key);
        final short min = handlerMin <= key.oldestVersion() ? kafkaAdvertisedMin(key) : handlerMin;
        return min <= max ? min : -1;
    }

    /** The highest version of {@code key} answered by the handler, or -1 when it is not served. */
    short maxServed(final ApiKeys key)
    {
        if (serverOwn(key))
        {
            return key.latestVersion(false);
        }
        final short max = handler.maxVersion(key);
        if (max < 0)
        {
            return -1;
        }
        if (max >= key.latestVersion())
        {
            final short beyond = handler.maxVersionBeyondKafka(key);
            if (beyond > key.latestVersion())
            {
                return (short)Math.min(beyond, KafkaApiExtensions.latestVersion(key));
            }
        }
        return (short)Math.min(max, key.latestVersion());
    }

    /**
     * ApiVersions and the SASL exchange are the socket server's own, on every listener as on Kafka's: a listener
     * without SASL answers SaslHandshake with ILLEGAL_SASL_STATE instead of closing the connection.
     */
    private static boolean serverOwn(final ApiKeys key)
    {
        return key == ApiKeys.API_VERSIONS || key == ApiKeys.SASL_HANDSHAKE || key == ApiKeys.SASL_AUTHENTICATE;
    }

    /** The lowest version of {@code key} a Kafka 4.4 broker advertises, from kafka-clients' own table. */
    private static short kafkaAdvertisedMin(final ApiKeys key)
    {
        return key.toApiVersionForApiResponse(false, ApiMessageType.ListenerType.BROKER)
            .map(ApiVersion::minVersion).orElse(key.oldestVersion());
    }

    /** Whether {@code version} of {@code key} is served and above kafka-clients' highest, for the protocol codecs. */
    boolean servesBeyondKafka(final ApiKeys key, final short version)
    {
        return KafkaApiExtensions.isBeyondKafka(key, version) && serves(key, version);
    }

    boolean serves(final ApiKeys key, final short version)
    {
        final short max = maxServed(key);
        return max >= 0 && version <= max && version >= minServed(key);
    }

    /** The answer to a parsed ApiVersions request. */
    AbstractResponse respond(final ApiVersionsRequest request)
    {
        if (!request.isValid())
        {
            return request.getErrorResponse(0, new InvalidRequestException(
                "invalid client software name or version in ApiVersions request"));
        }
        final ApiVersionsResponseData data = new ApiVersionsResponseData()
            .setErrorCode(Errors.NONE.code())
            .setThrottleTimeMs(0)
            .setApiKeys(servedApis());
        features.addTo(data, request.version());
        return new ApiVersionsResponse(data);
    }

    /**
     * Kafka's answer to ApiVersions at a version this server does not know: a v0 response with
     * UNSUPPORTED_VERSION and ApiVersions' own range only, from which the client picks the version to ask again with.
     */
    ApiVersionsResponse unsupportedVersion()
    {
        final ApiVersionCollection apis = new ApiVersionCollection();
        apis.add(new ApiVersion().setApiKey(ApiKeys.API_VERSIONS.id)
            .setMinVersion(minServed(ApiKeys.API_VERSIONS)).setMaxVersion(maxServed(ApiKeys.API_VERSIONS)));
        return new ApiVersionsResponse(new ApiVersionsResponseData()
            .setErrorCode(Errors.UNSUPPORTED_VERSION.code())
            .setApiKeys(apis));
    }

    private ApiVersionCollection servedApis()
    {
        final ApiVersionCollection apis = new ApiVersionCollection();
        for (final ApiKeys key : ApiKeys.values())
        {
            final short max = maxServed(key);
            final short min = minServed(key);
            if (max >= 0 && min >= 0)
            {
                apis.add(new ApiVersion().setApiKey(key.id).setMinVersion(min).setMaxVersion(max));
            }
        }
        // The mirror RPCs' keys are above Kafka's; clients that do not know them ignore them.
        final MirrorRequestHandler mirrors = handler.mirrorHandler();
        if (mirrors != null)
        {
            for (final MirrorApiKeys key : MirrorApiKeys.values())
            {
                if (mirrors.serves(key))
                {
                    apis.add(new ApiVersion().setApiKey(key.id()).setMinVersion(key.oldestVersion())
                        .setMaxVersion(key.latestVersion()));
                }
            }
        }
        return apis;
    }
}

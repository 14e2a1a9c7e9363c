package io.syncmirror.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;

import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

@Timeout(10)
class MirrorErrorResponsesTest
{
    @ParameterizedTest
    @EnumSource(MirrorApiKeys.class)
    void shouldAnswerEveryTopicOfTheRequestWithTheError(final MirrorApiKeys key)
    {
        final ApiMessage response = MirrorErrorResponses.errorResponse(MirrorMessageSamples.request(key), 9,
            (short)31, "denied");
        assertEquals(key.id(), response.apiKey());
        assertEquals(key.newResponseData().getClass(), response.getClass());
        final List<Short> codes = MirrorErrorResponses.errorCodes(response);
        assertFalse(codes.isEmpty());
        codes.forEach(code -> assertEquals((short)31, code));
        // The error response must itself encode.
        MirrorMessages.toByteBuffer(response, (short)0);
    }

    @Test
    void shouldAnswerEachTopicPatternOfAnAddRequestNamedByThePattern()
    {
        final AddTopicsToMirrorRequestData request = new AddTopicsToMirrorRequestData().setTopicPatterns(List.of(
            new AddTopicsToMirrorRequestData.TopicPattern().setPattern("orders-.*").setMirrorName("east")));
        final AddTopicsToMirrorResponseData response = (AddTopicsToMirrorResponseData)MirrorErrorResponses
            .errorResponse(request, 0, (short)41, "not controller");
        assertEquals(1, response.topics().size());
        assertEquals("orders-.*", response.topics().get(0).topicName());
        assertEquals((short)41, response.topics().get(0).errorCode());
    }

    @Test
    void shouldRefuseARequestThatIsNotAMirrorRpc()
    {
        assertThrows(IllegalArgumentException.class,
            () -> MirrorErrorResponses.errorResponse(new MetadataRequestData(), 0, (short)1, null));
    }
}

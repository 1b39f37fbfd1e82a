import type { ServerInterceptingCall, ServerInterceptingCallInterface } from '@grpc/grpc-js';

/**
 * An interceptor with nothing to do for a call hands the call on as it is. grpc-js chains whatever
 * each interceptor returns (getServerInterceptingCall reduces over them, calling only the
 * interface's methods), though its ServerInterceptor type names the class; `new
 * ServerInterceptingCall(call)` would instead keep an intercepting call, a listener and two
 * four-function objects alive for the whole call: on a FindGame stream, for the ticket's wait.
 */
export const passThrough = (call: ServerInterceptingCallInterface): ServerInterceptingCall => call as ServerInterceptingCall;

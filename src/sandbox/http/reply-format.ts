// DGII's services answer JSON, or XML when the client's Accept asks for it (DT, "Formatos salida"): the same fields
// under a root named for the reply (RespuestaAnulacionRango, RespuestaAprobacionComercial), a list repeating its
// element. Every service that answers both ways replies through here (shared with the service's receiver).
export { sendDgiiReply, wantsXml } from '../../platform/http/dgii-reply.js';

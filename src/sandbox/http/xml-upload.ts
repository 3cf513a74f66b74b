// The one way DGII's receiving services take a document: multipart/form-data with a file part named `xml`
// (research/dgii-protocol.md §1.2). DGII wants a known Content-Length: a chunked body is refused with
// "Multipart cannot be empty" (§1.3), so the sandbox refuses it the same way. Shared with the service's receiver
// (platform/http/xml-upload.ts).
export { maxXmlUploadBytes, readXmlUpload, type XmlUpload } from '../../platform/http/xml-upload.js';

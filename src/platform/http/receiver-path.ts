// DGII's receiver standard wants case-insensitive routes (research/dgii-protocol.md §6.1), but the app's router is
// case-sensitive (the rest of the API is not DGII's). So a receiver path, `/{env}/{service}/fe/...` in any casing,
// is lower-cased before routing; its query string is left as it came. Nothing else is touched.
const receiverPath = /^\/[^/?#]+\/[^/?#]+\/fe\//i;

export function normaliseReceiverUrl(url: string): string {
  if (!receiverPath.test(url)) return url;
  const query = url.indexOf('?');
  return query === -1 ? url.toLowerCase() : `${url.slice(0, query).toLowerCase()}${url.slice(query)}`;
}

// The S3 client as the configuration sets it up, and how its failures read: shared by the blob store and by the
// read of the bucket's own configuration (s3-bucket.ts).
import { S3Client } from '@aws-sdk/client-s3';
import type { S3Config } from '../../config.js';

export function createS3Client(s3: S3Config): S3Client {
  const { accessKeyId, secretAccessKey } = s3;
  return new S3Client({
    region: s3.region,
    endpoint: s3.endpoint,
    forcePathStyle: s3.forcePathStyle,
    // The default (WHEN_SUPPORTED) streams a trailing checksum with aws-chunked encoding, which S3-compatible
    // servers such as s3rver do not understand; the blob store's Content-MD5 covers integrity instead.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    // Without these the SDK waits on a silent S3 for ever, and the request that archives with it too. The request
    // timeout only warns unless told to throw; the socket timeout bounds a body that stops arriving after the
    // headers, which the request timeout no longer covers.
    requestHandler: {
      connectionTimeout: s3.connectTimeoutMs,
      requestTimeout: s3.requestTimeoutMs,
      throwOnRequestTimeout: true,
      socketTimeout: s3.requestTimeoutMs,
    },
    ...(accessKeyId !== undefined && secretAccessKey !== undefined
      ? { credentials: { accessKeyId, secretAccessKey } }
      : {}),
  });
}

/** What Node's sockets say when S3 cannot be reached or the connection breaks. */
const unreachable = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * Why S3 could not serve a call just now, or undefined when it did answer and refused it (a missing key, a denied
 * permission: those are not waited out). 5xx and 429 are S3 failing or shedding load; the rest is the network or our
 * timeouts. Only codes and statuses: the reason ends up in a burned number's cause.
 */
export function unavailableReason(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  if (status !== undefined && (status >= 500 || status === 429)) return `S3 answered ${String(status)} ${error.name}`;
  if (error.name === 'TimeoutError') return 'S3 did not answer in time';
  const code = (error as NodeJS.ErrnoException).code;
  if (code !== undefined && unreachable.has(code)) return `S3 cannot be reached (${code})`;
  return undefined;
}

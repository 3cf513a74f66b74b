/** DGII's .NET serializer declares these on the root of ARECF, ACECF and the seed; we write them the same way. */
export const dotNetNamespaces = {
  xsi: 'http://www.w3.org/2001/XMLSchema-instance',
  xsd: 'http://www.w3.org/2001/XMLSchema',
} as const;

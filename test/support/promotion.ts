/** A repository with one gated deployment: 7-Zip 24.08 through the "Pilot first" patch group (3 waves). */
import { PILOT_FIRST } from './manifests.js';

/** `promotion` is the block's body, one `key: value` per line. */
export function gatedYaml(promotion: string): string {
  return `apiVersion: packsync.dev/v1
kind: Package
metadata:
  name: seven-zip-24-08
spec:
  catalog:
    app: 7-Zip
    version: "24.08"
---
apiVersion: packsync.dev/v1
kind: Flow
metadata:
  name: seven-zip
spec:
  app: 7-Zip
  patchGroup: ${PILOT_FIRST}
---
apiVersion: packsync.dev/v1
kind: Deployment
metadata:
  name: seven-zip-24-08
spec:
  flow: seven-zip
  package: seven-zip-24-08
  state: running
  promotion:
${promotion
  .trim()
  .split('\n')
  .map((l) => `    ${l.trim()}`)
  .join('\n')}
`;
}

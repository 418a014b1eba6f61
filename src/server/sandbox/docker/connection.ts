import type Docker from 'dockerode';

/**
 * dockerode's connection options from a DOCKER_HOST-style address.
 *
 * @example dockerConnection('unix:///var/run/docker.sock') // { socketPath: '/var/run/docker.sock' }
 * @example dockerConnection('tcp://10.0.0.5:2375')         // { host: '10.0.0.5', port: 2375, protocol: 'http' }
 */
export function dockerConnection(address: string): Docker.DockerOptions {
  const url = new URL(address);
  switch (url.protocol) {
    case 'unix:':
    case 'npipe:':
      return { socketPath: decodeURIComponent(url.pathname) };
    case 'tcp:':
    case 'http:':
      return { host: url.hostname, port: Number(url.port || 2375), protocol: 'http' };
    case 'https:':
      return { host: url.hostname, port: Number(url.port || 2376), protocol: 'https' };
    default:
      throw new Error(`Unsupported Docker host ${address}`);
  }
}

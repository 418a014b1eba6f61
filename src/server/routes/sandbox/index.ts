import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ErrorResponse, ProjectIdParams } from '../../../shared/api/common';
import { ProjectParams } from '../../../shared/api/projects';
import {
  ContainerStatusResponse,
  FolderDownloadQuery,
  SandboxBackupResponse,
  SandboxHistoryResponse,
  SandboxInitializeBody,
  SandboxInitializeResponse,
  SandboxPreflightResponse,
  SandboxStartResponse,
  SandboxStatusResponse,
  SandboxStopResponse,
  SECRET_FILES_HEADER,
  WorkspaceDownloadQuery,
  ZIP_CONTENT_TYPE,
} from '../../../shared/api/sandbox';
import { projectFolderZipName, workspaceZipName } from '../../../shared/constants/sandbox';
import { NotModified, sendSnapshot } from '../../plugins/hotPoll';
import { ownedProjectInMemory } from '../../plugins/projectHeader';
import { authOf } from '../../plugins/session';
import { terminalRoutes } from './terminal';

const errors = { 400: ErrorResponse, 401: ErrorResponse, 404: ErrorResponse, 409: ErrorResponse };
const tags = ['sandbox'];
/** Zip answers are streamed, never serialised. */
const zipAnswer = { 200: Type.Unknown({ description: 'application/zip' }), ...errors };

const attachment = (name: string): string => `attachment; filename="${name}"`;

/**
 * The project's sandbox: part 1's provisioning calls under /sandbox, part 2's control, backup, history
 * and downloads under /sandboxes/{projectId} (the documents' "sandbox host"), the workspace download
 * under /projects/{id}. Every call looks the project up within the caller's installation first.
 */
export const sandboxRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { projects, sandbox } = app.services;
  const scoped = (request: { params: { projectId: string } } & Parameters<typeof authOf>[0]) =>
    projects.require(authOf(request).installationId, Number(request.params.projectId));

  app.get(
    '/sandbox/status/:projectId',
    { schema: { tags, params: ProjectIdParams, response: { 200: SandboxStatusResponse, ...errors } } },
    async (request) => sandbox.provisioningStatus(await scoped(request)),
  );

  app.post(
    '/sandbox/initialize/:projectId',
    { schema: { tags, params: ProjectIdParams, body: SandboxInitializeBody, response: { 200: SandboxInitializeResponse, ...errors } } },
    async (request) => sandbox.initialise(await scoped(request)),
  );

  app.get(
    '/sandboxes/:projectId/status',
    {
      schema: {
        tags,
        description: 'Polled every 10 s: answered from memory with a weak ETag; 304 when If-None-Match matches.',
        params: ProjectIdParams,
        response: { 200: ContainerStatusResponse, 304: NotModified, ...errors },
      },
      config: {
        snapshotInMemory: (request, auth) => {
          const id = ownedProjectInMemory(projects, request, auth, (request.params as ProjectIdParams).projectId);
          return id === undefined ? undefined : sandbox.containerStatuses.peek({ id, installationId: auth.installationId });
        },
      },
    },
    async (request, reply) => {
      const project = await projects.requireRecent(authOf(request).installationId, Number(request.params.projectId));
      return sendSnapshot(request, reply, await sandbox.containerStatuses.get(project));
    },
  );

  app.get(
    '/sandboxes/:projectId/preflight',
    {
      schema: {
        tags,
        description: "The tool check of the sandbox's last initialisation: programs the implementation plan calls that the sandbox lacked.",
        params: ProjectIdParams,
        response: { 200: SandboxPreflightResponse, ...errors },
      },
    },
    async (request) => sandbox.preflight(await scoped(request)),
  );

  app.post(
    '/sandboxes/:projectId/start',
    { schema: { tags, params: ProjectIdParams, response: { 200: SandboxStartResponse, ...errors } } },
    async (request) => sandbox.start(await scoped(request)),
  );

  app.post(
    '/sandboxes/:projectId/stop',
    { schema: { tags, params: ProjectIdParams, response: { 200: SandboxStopResponse, ...errors } } },
    async (request) => sandbox.stop(await scoped(request)),
  );

  app.post(
    '/sandboxes/:projectId/backup',
    { schema: { tags, params: ProjectIdParams, response: { 200: SandboxBackupResponse, ...errors } } },
    async (request) => sandbox.backup(await scoped(request)),
  );

  app.get(
    '/sandboxes/:projectId/history',
    { schema: { tags, params: ProjectIdParams, response: { 200: SandboxHistoryResponse, ...errors } } },
    async (request) => sandbox.history(await scoped(request)),
  );

  app.get(
    '/sandboxes/:projectId/workspace/folder_download',
    { schema: { tags, params: ProjectIdParams, querystring: FolderDownloadQuery, response: zipAnswer } },
    async (request, reply) => {
      const includeSecrets = request.query.include_secrets === 'true';
      const { stream, username } = await sandbox.folderZip(await scoped(request), request.query.path, { includeSecrets });
      return reply
        .type(ZIP_CONTENT_TYPE)
        .header('content-disposition', attachment(projectFolderZipName(username)))
        .header(SECRET_FILES_HEADER, includeSecrets ? 'included' : 'left-out')
        .send(stream);
    },
  );

  app.get(
    '/projects/:id/workspace/download',
    { schema: { tags, params: ProjectParams, querystring: WorkspaceDownloadQuery, response: zipAnswer } },
    async (request, reply) => {
      const project = await projects.require(authOf(request).installationId, Number(request.params.id));
      const includeSecrets = request.query.include_secrets === 'true';
      const stream = await sandbox.workspaceZip(project, { includeSecrets });
      return reply
        .type(ZIP_CONTENT_TYPE)
        .header('content-disposition', attachment(workspaceZipName(project.id)))
        .header(SECRET_FILES_HEADER, includeSecrets ? 'included' : 'left-out')
        .send(stream);
    },
  );

  await app.register(terminalRoutes);
};

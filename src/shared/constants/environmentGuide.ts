/**
 * The Environment Guide of the project home (part 2 section 2): static product text explaining the
 * sandbox, its workspace folders, downloads, backups, taking over the infrastructure and good habits.
 * Kept out of the constants barrel so that only the project home chunk carries it.
 */

export interface GuideSection {
  id: string;
  title: string;
  paragraphs: readonly string[];
  /** Optional list after the paragraphs; `term` is shown in code type (a folder, a command). */
  items?: readonly { term?: string; text: string }[];
}

export const ENVIRONMENT_GUIDE = {
  title: 'Environment Guide',
  intro:
    'How your project sandbox works, where the agents keep your infrastructure code, and how to take it with you.',
  sections: [
    {
      id: 'sandbox',
      title: 'Your project sandbox',
      paragraphs: [
        'Every project has its own sandbox: an isolated Linux environment in which the agents and the DevOps Helper run commands for you, only after you approve them. Nothing runs on your machine.',
        'The sandbox has its own user and a workspace folder at /home/{username}/workspace. The status at the top of this page shows whether it is running; start it when you need it and stop it when you are done.',
        'Only the workspace folder is kept. Tools you install elsewhere in the sandbox and files outside the workspace are gone after a restart.',
      ],
    },
    {
      id: 'folders',
      title: 'Workspace folders',
      paragraphs: ['The agents keep everything they create in a few well-known folders of the workspace:'],
      items: [
        {
          term: 'ssh-keys/',
          text: 'SSH keys for your servers. ~/.ssh points here, so keys survive restarts. Keep private keys private: never commit them to a repository.',
        },
        {
          term: 'terraform/',
          text: 'Terraform configuration for cloud resources (instances, networks, DNS). Its state files live here too: without them Terraform cannot change or destroy what it created.',
        },
        {
          term: 'ansible/',
          text: 'Ansible inventories and playbooks that configure your servers (packages, users, docker-compose stacks, web server and TLS).',
        },
      ],
    },
    {
      id: 'downloading',
      title: 'Downloading your files',
      paragraphs: [
        'Download Workspace Directory from Sandbox saves the working directory as {projectId}-working-directory.zip. Download Project Folder saves your whole workspace folder as a zip named after the sandbox user.',
        'Both need a running sandbox. Download regularly, and always before you delete a project: the zip is your own copy of the code that built your infrastructure.',
      ],
    },
    {
      id: 'backups',
      title: 'Backups',
      paragraphs: [
        'Files must be backed up to be restored when the sandbox restarts. Backup Sandbox Files saves the workspace now; the time of the last backup is shown under the buttons.',
        'Stopping the sandbox backs it up first. If that backup fails, the sandbox keeps running so that nothing is lost: fix the problem shown and try again.',
      ],
    },
    {
      id: 'taking-over',
      title: 'Taking over your infrastructure',
      paragraphs: [
        'What the agents built is yours, and nothing ties it to this product. To run it yourself:',
      ],
      items: [
        { text: 'Download the project folder and put it in a private repository of your own.' },
        { text: 'Move the SSH keys from ssh-keys/ to your machine (chmod 600) or, better, replace them with new keys of yours.' },
        { term: 'terraform init && terraform plan', text: 'in terraform/ shows that Terraform still knows every resource; keep the state safe or move it to a remote backend.' },
        { term: 'ansible-playbook -i inventory site.yml --check', text: 'in ansible/ shows what a run would change before you run it for real.' },
        { text: 'Rotate any credentials you gave the agents once you have taken over.' },
      ],
    },
    {
      id: 'best-practices',
      title: 'Best practices',
      paragraphs: [],
      items: [
        { text: 'Back up before and after every important change, and before stopping the sandbox.' },
        { text: 'Read every command before you approve it, above all the ones that delete or overwrite.' },
        { text: 'Keep secrets in the project secrets, never in files of the workspace.' },
        { text: 'Stop the sandbox when you are not using it.' },
        { text: 'Keep a copy of the workspace outside the sandbox: download it after each stage.' },
      ],
    },
  ] satisfies readonly GuideSection[],
} as const;

export const PROJECT_HOME_TEXT = {
  beforeYouBeginNote:
    'The agents keep your SSH keys, Terraform and Ansible code in the sandbox workspace. Read the Environment Guide to learn where things are and how to back them up and download them.',
  readEnvironmentGuide: 'Read the Environment Guide',
  loadingDocumentation: 'Loading documentation...',
  generatingDocumentation: 'Documentation is being generated...',
  outOfDate: 'These documents were written before the latest validation results.',
  regenerate: 'Regenerate documentation',
  regenerating: 'Regenerating documentation...',
  /** The sidebar's way back to the workflow stages (each opens the workspace on that stage). */
  stages: 'Stages',
  openStage: (name: string): string => `Open the ${name} stage`,
  lastBackup: 'Last backup:',
  statusLabel: 'Status',
  loadingStatus: 'Checking sandbox status...',
  backingUp: 'Backing up...',
  backedUp: 'Sandbox files backed up.',
  stopping: 'Stopping...',
  starting: 'Starting...',
  downloading: 'Downloading...',
} as const;

/**
 * The fixed tables behind the simulator's fixtures: the small fleet's catalog apps (real names and
 * versions, so docs and examples read naturally), its tenants and their device counts, and the
 * words the large fleet's generated app names are made of.
 */
export const SMALL_APPS: [name: string, publisher: string, versions: string[], tags: string[]][] = [
  ['7-Zip', 'Igor Pavlov', ['24.08', '24.07', '23.01'], ['utilities', 'compression']],
  ['PowerShell 7', 'Microsoft Corporation', ['7.4.6', '7.4.5'], ['developer', 'shell']],
  ['Google Chrome', 'Google LLC', ['131.0.6778.86', '130.0.6723.117'], ['browser']],
  ['Mozilla Firefox', 'Mozilla', ['133.0', '132.0.2'], ['browser']],
  ['Notepad++', 'Notepad++ Team', ['8.7.1', '8.6.9'], ['editor']],
  ['Microsoft Visual Studio Code', 'Microsoft Corporation', ['1.95.3', '1.94.2'], ['developer', 'editor']],
  ['Adobe Acrobat Reader', 'Adobe Inc.', ['24.004.20220', '24.003.20180'], ['pdf']],
  ['VLC media player', 'VideoLAN', ['3.0.21', '3.0.20'], ['media']],
  ['Zoom Workplace', 'Zoom Video Communications', ['6.2.11', '6.2.10'], ['meetings']],
  ['Slack', 'Slack Technologies', ['4.41.97', '4.40.133'], ['chat']],
  ['Microsoft Teams', 'Microsoft Corporation', ['24295.605.3225.8804'], ['chat', 'meetings']],
  ['Git', 'The Git Development Community', ['2.47.1', '2.47.0'], ['developer']],
  ['Node.js', 'OpenJS Foundation', ['22.11.0', '20.18.1'], ['developer', 'runtime']],
  ['Python 3', 'Python Software Foundation', ['3.13.0', '3.12.7'], ['developer', 'runtime']],
  ['WinSCP', 'Martin Prikryl', ['6.3.5', '6.3.4'], ['network']],
  ['PuTTY', 'Simon Tatham', ['0.82', '0.81'], ['network']],
  ['Paint.NET', 'dotPDN LLC', ['5.1', '5.0.13'], ['graphics']],
  ['KeePass', 'Dominik Reichl', ['2.57.1', '2.57'], ['security']],
  ['GIMP', 'The GIMP Team', ['2.10.38', '2.10.36'], ['graphics']],
  ['Audacity', 'Audacity Team', ['3.7.0', '3.6.4'], ['media']],
  ['Wireshark', 'Wireshark Foundation', ['4.4.2', '4.4.1'], ['network', 'developer']],
  ['FileZilla', 'Tim Kosse', ['3.68.1', '3.67.1'], ['network']],
  ['Greenshot', 'Greenshot', ['1.2.10.6'], ['utilities']],
  ['Everything', 'voidtools', ['1.4.1.1026', '1.4.1.1024'], ['utilities', 'search']],
  ['SumatraPDF', 'Krzysztof Kowalczyk', ['3.5.2', '3.5.1'], ['pdf']],
];

/** Managed devices of the small fleet's tenants, by default domain (chosen: one large, one small). */
export const SMALL_DEVICES: Record<string, number> = {
  'contoso.onmicrosoft.com': 240,
  'fabrikam.onmicrosoft.com': 120,
  'northwindtraders.onmicrosoft.com': 600,
  'tailspintoys.onmicrosoft.com': 40,
};

export const SMALL_TENANTS: [string, string, string][] = [
  ['Contoso', 'contoso.onmicrosoft.com', '#0af0ba'],
  ['Fabrikam', 'fabrikam.onmicrosoft.com', '#f0a30a'],
  ['Northwind Traders', 'northwindtraders.onmicrosoft.com', '#3a7bd5'],
  ['Tailspin Toys', 'tailspintoys.onmicrosoft.com', '#d53a9d'],
];

export const LARGE_VENDORS = ['Acme', 'Globex', 'Initech', 'Umbrella', 'Stark', 'Wayne', 'Hooli', 'Vandelay', 'Soylent', 'Tyrell'];
export const LARGE_PRODUCTS = ['Agent', 'Studio', 'Viewer', 'Sync', 'Connect', 'Manager', 'Runtime', 'Toolkit', 'Player', 'Editor'];

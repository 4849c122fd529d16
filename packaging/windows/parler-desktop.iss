; Inno Setup script for the Windows installer; packaging/build.py runs it as
;   iscc /DAppVersion=X.Y.Z /DSourceDir=dist\parler-desktop /Odist packaging\windows\parler-desktop.iss
; Per-user install (no administrator rights), a Start menu entry, and the parler: URL protocol so
; invite links open the app (which asks before it joins).

#ifndef AppVersion
  #error Pass /DAppVersion=...
#endif
#ifndef SourceDir
  #define SourceDir "..\..\dist\parler-desktop"
#endif

[Setup]
AppId={{6F1D3C52-8E0B-4B8A-9C61-5A7E2D9B4F10}
AppName=Parler Desktop
AppVersion={#AppVersion}
AppPublisher=The parler-desktop authors
DefaultDirName={localappdata}\Programs\Parler Desktop
DefaultGroupName=Parler Desktop
PrivilegesRequired=lowest
OutputBaseFilename=parler-desktop-{#AppVersion}-setup
SetupIconFile=..\..\resources\icons\parler-desktop.ico
UninstallDisplayIcon={app}\parler-desktop.exe
LicenseFile=..\..\LICENSE
Compression=lzma2
SolidCompression=yes
WizardStyle=modern
ArchitecturesInstallIn64BitMode=x64compatible

[Files]
Source: "{#SourceDir}\*"; DestDir: "{app}"; Flags: recursesubdirs createallsubdirs ignoreversion
Source: "..\THIRD-PARTY.md"; DestDir: "{app}"; Flags: ignoreversion

[Icons]
Name: "{group}\Parler Desktop"; Filename: "{app}\parler-desktop.exe"
Name: "{group}\Uninstall Parler Desktop"; Filename: "{uninstallexe}"

[Registry]
Root: HKCU; Subkey: "Software\Classes\parler"; ValueType: string; ValueName: ""; ValueData: "URL:Parler invite link"; Flags: uninsdeletekey
Root: HKCU; Subkey: "Software\Classes\parler"; ValueType: string; ValueName: "URL Protocol"; ValueData: ""
Root: HKCU; Subkey: "Software\Classes\parler\DefaultIcon"; ValueType: string; ValueName: ""; ValueData: "{app}\parler-desktop.exe,0"
Root: HKCU; Subkey: "Software\Classes\parler\shell\open\command"; ValueType: string; ValueName: ""; ValueData: """{app}\parler-desktop.exe"" ""%1"""

[Run]
Filename: "{app}\parler-desktop.exe"; Description: "Start Parler Desktop"; Flags: nowait postinstall skipifsilent

[Code]
// Start at login (parler_desktop/platform/autostart/run_key.py) keeps a "Parler" value under the
// per-user Run key, written by the app, not by Setup. Uninstalling removes it when it runs this
// program, so no login tries to start a program that is gone; another program's value stays.
const
  RunKey = 'Software\Microsoft\Windows\CurrentVersion\Run';

procedure CurUninstallStepChanged(CurUninstallStep: TUninstallStep);
var
  Command: String;
begin
  if (CurUninstallStep = usPostUninstall)
    and RegQueryStringValue(HKCU, RunKey, 'Parler', Command)
    and (Pos('parler-desktop.exe', Lowercase(Command)) > 0) then
    RegDeleteValue(HKCU, RunKey, 'Parler');
end;

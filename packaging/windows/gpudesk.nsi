; gpudesk installer for Windows (NSIS 3, Unicode). Per-user install: no administrator rights needed.
;
; Build (from the repository root, after PyInstaller has made dist\gpudesk\):
;   makensis /INPUTCHARSET UTF8 /DVERSION=0.1.0 packaging\windows\gpudesk.nsi
; Output: dist\gpudesk-<VERSION>-setup.exe
;
; Installs dist\gpudesk\ to %LOCALAPPDATA%\Programs\gpudesk, adds a Start-menu entry and an entry in
; "Apps & features" (HKCU), and writes an uninstaller. The uninstaller removes the program folder and its
; entries; the user data folder (%LOCALAPPDATA%\gpudesk: plans, recordings, diagnoses, settings) is kept unless
; the user ticks "Also delete my gpudesk data" on its first page, or passes /REMOVEUSERDATA to a silent
; uninstall (Uninstall.exe /S /REMOVEUSERDATA). Installing a newer version over an older one replaces the
; program folder (and so the bundled, read-only catalog) and leaves the user data folder alone.

Unicode true
ManifestDPIAware true
RequestExecutionLevel user
SetCompressor /SOLID lzma

!ifndef VERSION
  !error "pass the version: makensis /DVERSION=x.y.z packaging\windows\gpudesk.nsi"
!endif
!define APP "gpudesk"
!define PUBLISHER "The gpudesk authors"
!define BUNDLE "..\..\dist\gpudesk"
!define UNINST_KEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\${APP}"
!define ICON "..\..\build\generated\icons\gpudesk.ico"

!include "MUI2.nsh"
!include "FileFunc.nsh"
!include "LogicLib.nsh"

Name "${APP} ${VERSION}"
OutFile "..\..\dist\${APP}-${VERSION}-setup.exe"
InstallDir "$LOCALAPPDATA\Programs\${APP}"
InstallDirRegKey HKCU "Software\${APP}" "InstallDir"
BrandingText "${APP} ${VERSION}"

!if /FileExists "${ICON}"
  !define MUI_ICON "${ICON}"
  !define MUI_UNICON "${ICON}"
!endif
!define MUI_ABORTWARNING
!define MUI_FINISHPAGE_RUN "$INSTDIR\${APP}.exe"
!insertmacro MUI_PAGE_LICENSE "..\..\LICENSE"
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_INSTFILES
!insertmacro MUI_PAGE_FINISH

; Uninstaller: a component page with one optional, unticked section for the user data.
!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_COMPONENTS
!insertmacro MUI_UNPAGE_INSTFILES
!insertmacro MUI_LANGUAGE "English"

VIProductVersion "${VERSION}.0"
VIAddVersionKey /LANG=${LANG_ENGLISH} "ProductName" "${APP}"
VIAddVersionKey /LANG=${LANG_ENGLISH} "ProductVersion" "${VERSION}"
VIAddVersionKey /LANG=${LANG_ENGLISH} "FileVersion" "${VERSION}"
VIAddVersionKey /LANG=${LANG_ENGLISH} "CompanyName" "${PUBLISHER}"
VIAddVersionKey /LANG=${LANG_ENGLISH} "FileDescription" "${APP} installer"
VIAddVersionKey /LANG=${LANG_ENGLISH} "LegalCopyright" "MIT License, ${PUBLISHER}"

Section "gpudesk" SecApp
  SectionIn RO
  SetShellVarContext current
  ; An upgrade replaces the whole program folder so no file of the old version is left behind.
  RMDir /r "$INSTDIR\_internal"
  Delete "$INSTDIR\${APP}.exe"
  Delete "$INSTDIR\${APP}-cli.exe"
  SetOutPath "$INSTDIR"
  File /r "${BUNDLE}\*.*"
  WriteUninstaller "$INSTDIR\Uninstall.exe"
  CreateShortcut "$SMPROGRAMS\${APP}.lnk" "$INSTDIR\${APP}.exe" "" "$INSTDIR\${APP}.exe" 0
  WriteRegStr HKCU "Software\${APP}" "InstallDir" "$INSTDIR"
  WriteRegStr HKCU "${UNINST_KEY}" "DisplayName" "${APP}"
  WriteRegStr HKCU "${UNINST_KEY}" "DisplayVersion" "${VERSION}"
  WriteRegStr HKCU "${UNINST_KEY}" "Publisher" "${PUBLISHER}"
  WriteRegStr HKCU "${UNINST_KEY}" "DisplayIcon" "$INSTDIR\${APP}.exe"
  WriteRegStr HKCU "${UNINST_KEY}" "InstallLocation" "$INSTDIR"
  WriteRegStr HKCU "${UNINST_KEY}" "UninstallString" '"$INSTDIR\Uninstall.exe"'
  WriteRegStr HKCU "${UNINST_KEY}" "QuietUninstallString" '"$INSTDIR\Uninstall.exe" /S'
  WriteRegDWORD HKCU "${UNINST_KEY}" "NoModify" 1
  WriteRegDWORD HKCU "${UNINST_KEY}" "NoRepair" 1
  ${GetSize} "$INSTDIR" "/S=0K" $0 $1 $2
  WriteRegDWORD HKCU "${UNINST_KEY}" "EstimatedSize" "$0"
SectionEnd

Section "un.gpudesk program files" SecUnApp
  SectionIn RO
  SetShellVarContext current
  Delete "$SMPROGRAMS\${APP}.lnk"
  RMDir /r "$INSTDIR\_internal"
  Delete "$INSTDIR\${APP}.exe"
  Delete "$INSTDIR\${APP}-cli.exe"
  Delete "$INSTDIR\Uninstall.exe"
  RMDir "$INSTDIR"
  DeleteRegKey HKCU "${UNINST_KEY}"
  DeleteRegKey HKCU "Software\${APP}"
SectionEnd

; Unticked by default: user data survives an uninstall unless the user asks for it to go.
Section /o "un.Also delete my gpudesk data (plans, recordings, diagnoses, settings)" SecUnData
  SetShellVarContext current
  RMDir /r "$LOCALAPPDATA\${APP}"
SectionEnd

LangString DESC_SecUnData ${LANG_ENGLISH} "Deletes $LOCALAPPDATA\${APP}. Leave it unticked to keep your data for a later install."
!insertmacro MUI_UNFUNCTION_DESCRIPTION_BEGIN
  !insertmacro MUI_DESCRIPTION_TEXT ${SecUnData} $(DESC_SecUnData)
!insertmacro MUI_UNFUNCTION_DESCRIPTION_END

Function un.onInit
  ; Silent uninstall keeps user data unless /REMOVEUSERDATA is given.
  ${GetParameters} $R0
  ClearErrors
  ${GetOptions} $R0 "/REMOVEUSERDATA" $R1
  ${IfNot} ${Errors}
    SectionSetFlags ${SecUnData} ${SF_SELECTED}
  ${EndIf}
FunctionEnd

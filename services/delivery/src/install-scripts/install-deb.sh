#!/usr/bin/env bash
# Packyard APT repository installer (Debian, Ubuntu and their derivatives).
#
# Served, without authentication (it holds no secret), at
#   GET {origin}/api/install-deb.sh?repo=<repositoryId>[&distro=<distro>][&codename=<codename>][&component=<component>]
# and run as root with the repository token as the only argument:
#   curl -fsSL "{origin}/api/install-deb.sh?repo=<repositoryId>&codename=bookworm&component=main" | sudo bash -s -- <TOKEN>
#
# The delivery module fills the @NAME@ placeholders below with shell-quoted values
# (renderInstallScript in install-script.ts); nothing else in this file is templated.
#   @REPOSITORY_NAME@  shown in messages
#   @FILE_STEM@        file-name-safe repository name: /etc/apt/keyrings/<stem>.gpg, sources.list.d/<stem>.list, auth.conf.d/<stem>.conf
#   @REPOSITORY_URL@   {origin}/deb/{workspaceSlug}/{repoName}
#   @KEYRING_URL@      the repository's public key as a binary OpenPGP keyring (what signed-by= needs)
#   @DISTRO@           the distro of the chosen codename (ubuntu, debian...); empty with an empty codename
#   @CODENAME@         the codename chosen in the console; empty = this machine's own codename
#   @COMPONENT@        the component chosen in the console (default main)
#   @STOCKED@          the distro/codename pairs whose index held packages when the script was
#                      served, space-separated; empty before the first upload
#
# What it does: detects the distribution from /etc/os-release (when the chosen distribution
# has no packages but this machine's own has, it uses this machine's), installs the signing key
# under /etc/apt/keyrings, puts the token in /etc/apt/auth.conf.d (mode 0600, never in a
# sources list), writes a signed-by source and refreshes that source. It never disables
# signature checks: if the repository cannot be verified, the installer fails.
set -euo pipefail

REPOSITORY_NAME=@REPOSITORY_NAME@
FILE_STEM=@FILE_STEM@
REPOSITORY_URL=@REPOSITORY_URL@
KEYRING_URL=@KEYRING_URL@
DISTRO=@DISTRO@
CODENAME=@CODENAME@
COMPONENT=@COMPONENT@
STOCKED=@STOCKED@

step="starting"
temporary_files=()
trap 'echo "packyard: installing ${REPOSITORY_NAME} failed while ${step}." >&2' ERR
# ${a[@]+"${a[@]}"}: bash before 4.4 treats an empty array as unset under set -u.
trap 'rm -f ${temporary_files[@]+"${temporary_files[@]}"}' EXIT

fail() {
  echo "packyard: $*" >&2
  exit 1
}

# Reads one field of /etc/os-release in a subshell: the file assigns NAME, ID, VERSION...,
# which must not overwrite this script's variables.
os_release() {
  (
    # shellcheck disable=SC1091
    . /etc/os-release
    printf '%s' "${!1:-}"
  )
}

TOKEN="${1:-}"
[ -n "$TOKEN" ] || fail "usage: install-deb.sh <TOKEN> (the repository token from the Install tab)"
# The token goes into an auth.conf line: whitespace or '#' would change its meaning.
case "$TOKEN" in
  *[!A-Za-z0-9._~+/=-]*) fail "the token contains characters a Packyard token never has; copy it again from the Install tab" ;;
esac
[ "$(id -u)" -eq 0 ] || fail "run as root, e.g. curl -fsSL '<script URL>' | sudo bash -s -- <TOKEN>"
[ -r /etc/os-release ] || fail "cannot read /etc/os-release to detect the distribution"
command -v apt-get >/dev/null 2>&1 || fail "apt-get not found: install-deb.sh is for Debian and Ubuntu; use install-rpm.sh on RPM-based systems"
command -v curl >/dev/null 2>&1 || fail "curl is required: apt-get install -y curl"

step="detecting the distribution"
os_id="$(os_release ID)"
os_id_like=" $(os_release ID_LIKE) "
case "$os_id" in
  ubuntu | debian | kali)
    os_distro="$os_id"
    os_codename="$(os_release VERSION_CODENAME)"
    ;;
  elementary)
    os_distro="elementaryos"
    os_codename="$(os_release VERSION_CODENAME)"
    ;;
  *)
    # Derivatives (Linux Mint, Pop!_OS, Raspberry Pi OS...) install what their base
    # distribution installs; Ubuntu-based ones name their base release in UBUNTU_CODENAME.
    case "$os_id_like" in
      *" ubuntu "*)
        os_distro="ubuntu"
        os_codename="$(os_release UBUNTU_CODENAME)"
        ;;
      *" debian "*)
        os_distro="debian"
        os_codename="$(os_release DEBIAN_CODENAME)"
        [ -n "$os_codename" ] || os_codename="$(os_release VERSION_CODENAME)"
        ;;
      *) fail "unsupported distribution '${os_id}': install-deb.sh supports Debian, Ubuntu and their derivatives" ;;
    esac
    ;;
esac
if [ -n "$CODENAME" ]; then
  distro="${DISTRO:-$os_distro}"
  codename="$CODENAME"
else
  distro="$os_distro"
  codename="$os_codename"
fi
[ -n "$codename" ] || fail "cannot tell this ${os_distro} release's codename; choose a codename in the Install tab"

# Every distribution is published, empty ones too, so apt would accept a choice without
# packages and then find nothing to install: choose where the packages are.
has_packages() {
  case " ${STOCKED} " in *" $1 "*) return 0 ;; esac
  return 1
}
if [ -n "$STOCKED" ] && ! has_packages "${distro}/${codename}"; then
  if [ -n "$os_codename" ] && has_packages "${os_distro}/${os_codename}"; then
    echo "packyard: note: ${REPOSITORY_NAME} has no packages for ${distro}/${codename}; using this machine's ${os_distro}/${os_codename}, which has" >&2
    distro="$os_distro"
    codename="$os_codename"
  else
    fail "${REPOSITORY_NAME} has no packages for ${distro}/${codename} (this machine runs ${os_distro}/${os_codename:-?}); it has packages for: ${STOCKED// /, }. Choose one of those in the Install tab, or upload packages for ${os_distro}/${os_codename:-<codename>}."
  fi
fi
if [ -n "$os_codename" ] && [ "${distro}/${codename}" != "${os_distro}/${os_codename}" ]; then
  echo "packyard: note: this machine runs ${os_distro} ${os_codename}, installing packages published for ${distro}/${codename}" >&2
fi

keyring="/etc/apt/keyrings/${FILE_STEM}.gpg"
step="downloading the signing key from ${KEYRING_URL}"
key_download="$(mktemp)"
temporary_files+=("$key_download")
curl -fsSL --proto '=http,https' -o "$key_download" "$KEYRING_URL"
# A binary public-key packet starts with 0x99 (old format) or 0xc6 (new format); anything
# else (an HTML error page, an armored key) would make every apt update fail later.
case "$(head -c 1 "$key_download" | od -An -tx1 | tr -d ' \n')" in
  99 | c6) ;;
  *) fail "${KEYRING_URL} did not return an OpenPGP public key" ;;
esac
step="installing the signing key as ${keyring}"
install -d -m 0755 /etc/apt/keyrings
install -m 0644 "$key_download" "$keyring"

auth_file="/etc/apt/auth.conf.d/${FILE_STEM}.conf"
step="storing the token in ${auth_file}"
install -d -m 0755 /etc/apt/auth.conf.d
repository_location="${REPOSITORY_URL#*://}"
auth_content="$(mktemp)"
temporary_files+=("$auth_content")
{
  # The token is the login and the password is empty. apt reads auth.conf like netrc, so
  # the password keyword is left out: a bare "password" would swallow the next word.
  echo "# Packyard repository ${FILE_STEM}"
  # apt 2.6 matches a machine without a scheme only for https sources, so http sources
  # need the scheme spelled out; older apt only understands the form without it.
  case "$REPOSITORY_URL" in
    http://*) echo "machine ${REPOSITORY_URL} login ${TOKEN}" ;;
  esac
  echo "machine ${repository_location} login ${TOKEN}"
} >"$auth_content"
install -m 0600 "$auth_content" "$auth_file"

sources_file="/etc/apt/sources.list.d/${FILE_STEM}.list"
step="writing ${sources_file}"
source_line="deb [signed-by=${keyring}] ${REPOSITORY_URL}/${distro} ${codename} ${COMPONENT}"
# deb-src as well, so `apt-get source` finds the repository's source packages
printf '%s\n' "$source_line" "deb-src [signed-by=${keyring}] ${REPOSITORY_URL}/${distro} ${codename} ${COMPONENT}" >"$sources_file"
chmod 0644 "$sources_file"

step="refreshing ${REPOSITORY_NAME} (apt-get update); check the token and that packages were published for ${distro}/${codename}"
# Only this repository's lists are refreshed, so a broken unrelated source cannot fail
# the installation; Error-Mode=any turns every fetch or verification warning into a failure.
apt-get update \
  -o Dir::Etc::sourcelist="$sources_file" \
  -o Dir::Etc::sourceparts=- \
  -o APT::Get::List-Cleanup=0 \
  -o APT::Update::Error-Mode=any

step="finishing"
echo "packyard: ${REPOSITORY_NAME} is ready: ${source_line}"
echo "packyard: install packages with: sudo apt-get install <package>"

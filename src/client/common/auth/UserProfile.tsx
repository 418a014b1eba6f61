import { useCallback, useEffect, useId, useRef, useState, type ReactElement } from 'react';
import styled from 'styled-components';
import { PROFILE } from '../../../shared/constants';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { useInjectSaga } from '../../app/injectSaga';
import { Skeleton } from '../components/Skeleton';
import { useOutsideClick } from '../hooks/useOutsideClick';
import { logError } from '../log';
import { useGetUserQuery } from './authApi';
import { authSaga } from './authSaga';
import { selectSignOutPending, signOutRequested } from './authSlice';

/**
 * The user-profile area (part 1 section 2): avatar, display name (login as fallback) and '@login',
 * with a menu holding Sign Out. A skeleton while loading; no profile when it fails — but Sign Out
 * stays (a person must always be able to leave).
 */
export function UserProfile(): ReactElement | null {
  useInjectSaga(authSaga);
  const { data: user, isLoading, error } = useGetUserQuery();
  const dispatch = useAppDispatch();
  const signingOut = useAppSelector(selectSignOutPending);
  const [open, setOpen] = useState(false);
  const rootRef = useRef<HTMLDivElement>(null);
  const triggerRef = useRef<HTMLButtonElement>(null);
  const itemRef = useRef<HTMLButtonElement>(null);
  const menuId = useId();
  const close = useCallback(() => setOpen(false), []);
  useOutsideClick(rootRef, open, close);

  useEffect(() => {
    if (open) itemRef.current?.focus();
  }, [open]);

  useEffect(() => {
    if (error) logError('profile', error);
  }, [error]);

  if (isLoading) {
    return (
      <Profile aria-busy="true" aria-label="Loading profile" data-testid="profile-skeleton">
        <Skeleton $width="36px" $height="36px" $round />
        <Names>
          <Skeleton $width="110px" />
          <Skeleton $width="70px" $height="10px" />
        </Names>
      </Profile>
    );
  }
  if (!user) {
    return (
      <SignOutOnly type="button" disabled={signingOut} onClick={() => dispatch(signOutRequested())}>
        {signingOut ? 'Signing out...' : PROFILE.signOut}
      </SignOutOnly>
    );
  }

  const displayName = user.name?.trim() || user.login;
  return (
    <Profile ref={rootRef}>
      <Trigger
        ref={triggerRef}
        type="button"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        onClick={() => setOpen((value) => !value)}
        onKeyDown={(event) => {
          if (event.key === 'Escape') setOpen(false);
        }}
      >
        <Avatar src={user.avatar_url} alt={`${user.login} avatar`} width={36} height={36} />
        <Names>
          <DisplayName>{displayName}</DisplayName>
          <Login>@{user.login}</Login>
        </Names>
        <Caret aria-hidden="true">{open ? '▴' : '▾'}</Caret>
      </Trigger>
      {open && (
        <Menu id={menuId} role="menu" aria-label="Account">
          <MenuItem
            ref={itemRef}
            type="button"
            role="menuitem"
            disabled={signingOut}
            onClick={() => dispatch(signOutRequested())}
            onKeyDown={(event) => {
              if (event.key === 'Escape') {
                setOpen(false);
                triggerRef.current?.focus();
              }
            }}
          >
            {signingOut ? 'Signing out...' : PROFILE.signOut}
          </MenuItem>
        </Menu>
      )}
    </Profile>
  );
}

const SignOutOnly = styled.button`
  padding: ${({ theme }) => `${theme.space(2)} ${theme.space(3)}`};
  border: 1px solid ${({ theme }) => theme.colors.border};
  border-radius: ${({ theme }) => theme.radii.md};
  background: transparent;
  cursor: pointer;
  &:hover:not(:disabled) { background: ${({ theme }) => theme.colors.surfaceHover}; }
`;

const Profile = styled.div`
  position: relative;
  display: flex;
  align-items: center;
  gap: ${({ theme }) => theme.space(3)};
  min-height: 52px;
`;

const Trigger = styled.button`
  display: flex;
  align-items: center;
  gap: ${({ theme }) => theme.space(3)};
  width: 100%;
  padding: ${({ theme }) => theme.space(2)};
  border: 1px solid transparent;
  border-radius: ${({ theme }) => theme.radii.md};
  background: transparent;
  text-align: left;
  cursor: pointer;
  &:hover { background: ${({ theme }) => theme.colors.surfaceHover}; }
`;

const Avatar = styled.img`
  flex: none;
  border-radius: 50%;
  background: ${({ theme }) => theme.colors.surfaceHover};
`;

const Names = styled.span`
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space(1)};
  min-width: 0;
  flex: 1;
`;

const DisplayName = styled.span`
  font-weight: 600;
  overflow: hidden;
  text-overflow: ellipsis;
  white-space: nowrap;
`;

const Login = styled.span`
  color: ${({ theme }) => theme.colors.textMuted};
  font-size: ${({ theme }) => theme.fontSizes.sm};
`;

const Caret = styled.span`
  color: ${({ theme }) => theme.colors.textMuted};
`;

const Menu = styled.div`
  position: absolute;
  left: 0;
  right: 0;
  bottom: calc(100% + 4px);
  padding: ${({ theme }) => theme.space(1)};
  border-radius: ${({ theme }) => theme.radii.md};
  border: 1px solid ${({ theme }) => theme.colors.border};
  background: ${({ theme }) => theme.colors.surfaceRaised};
  box-shadow: ${({ theme }) => theme.shadows.raised};
  z-index: 10;
`;

const MenuItem = styled.button`
  width: 100%;
  padding: ${({ theme }) => `${theme.space(2)} ${theme.space(3)}`};
  border: none;
  border-radius: ${({ theme }) => theme.radii.sm};
  background: transparent;
  text-align: left;
  cursor: pointer;
  &:hover:not(:disabled) { background: ${({ theme }) => theme.colors.surfaceHover}; }
  &:disabled { opacity: 0.6; cursor: progress; }
`;
